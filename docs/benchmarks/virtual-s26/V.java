import io.github.workerpool.WorkerPool;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class V {
    static final AtomicInteger remaining = new AtomicInteger();
    static volatile Thread waiter; static final long[] marks = new long[100]; static WorkerPool P; static final StringBuilder RS = new StringBuilder(); static final boolean RSON = System.getProperty("rs") != null;

    /** CPU ticks (10 ms) per thread group so far, from /proc/self/task: JIT, carriers, producer, GC. */
    static String cpuByGroup() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        java.io.File[] ts = new java.io.File("/proc/self/task").listFiles();
        if (ts == null) return "";
        for (java.io.File t : ts) {
            try {
                String st = new String(java.nio.file.Files.readAllBytes(new java.io.File(t, "stat").toPath()));
                String comm = st.substring(st.indexOf('(') + 1, st.lastIndexOf(')'));
                String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                String g = comm.startsWith("C2") ? "c2" : comm.startsWith("C1") ? "c1" : comm.startsWith("ForkJoin") ? "fj" : comm.startsWith("GC") || comm.startsWith("G1") ? "gc" : comm.equals("java") ? "main" : "other";
                m.merge(g, ticks, Long::sum);
            } catch (Exception e) { }
        }
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v * 10));
        return sb.toString();
    }
    interface T { void submit(Runnable r) throws Exception; void close() throws Exception; }
    public static void main(String[] a) throws Exception {
        String peer = a[0];
        int tasks = Integer.parseInt(a.length > 1 ? a[1] : "1000000");
        int cap = 10000;
        T t;
        if (peer.equals("poolp")) { WorkerPool w = WorkerPool.builder().name("warm").capacity(4).queueCapacity(Integer.MAX_VALUE).build(); java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1); for (int i = 0; i < 4; i++) w.execute(() -> { try { gate.await(); } catch (InterruptedException e) { } }); for (int i = 0; i < 50000; i++) w.execute(() -> { }); w.shutdownNow(); gate.countDown(); w.awaitTermination(1, TimeUnit.MINUTES); peer = "pool"; }
        if (peer.equals("poolw")) { WorkerPool w = WorkerPool.builder().name("warm").capacity(4).queueCapacity(Integer.MAX_VALUE).build(); java.util.concurrent.CountDownLatch l = new java.util.concurrent.CountDownLatch(50000); for (int i = 0; i < 50000; i++) w.execute(l::countDown); l.await(); w.shutdown(); peer = "pool"; }
        if (peer.startsWith("poolb")) {
            // Virtual workers with a bounded queue (callers block when it is full), of -Dqc tasks (default 10,000).
            WorkerPool p = WorkerPool.builder().name("bench").capacity(cap).queueCapacity(Integer.getInteger("qc", 10000)).virtualThreads(true).build(); P = p;
            t = new T() { public void submit(Runnable r) throws Exception { p.execute(r); } public void close() throws Exception { p.shutdown(); p.awaitTermination(1, TimeUnit.MINUTES);} };
        } else if (peer.equals("pool")) {
            WorkerPool p = WorkerPool.builder().name("bench").capacity(cap).queueCapacity(Integer.MAX_VALUE).virtualThreads(true).build(); P = p;
            t = new T() { public void submit(Runnable r) throws Exception { p.execute(r); } public void close() throws Exception { p.shutdown(); p.awaitTermination(1, TimeUnit.MINUTES);} };
        } else if (peer.equals("floor")) {
            java.util.concurrent.ConcurrentLinkedQueue<Runnable> q = new java.util.concurrent.ConcurrentLinkedQueue<>();
            java.util.concurrent.atomic.AtomicBoolean fed = new java.util.concurrent.atomic.AtomicBoolean();
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
            Runnable loop = () -> { for (;;) { Runnable r = q.poll(); if (r != null) r.run(); else if (fed.get() && q.isEmpty()) return; else LockSupport.parkNanos(50_000); } };
            for (int i = 0; i < cap; i++) vt.execute(loop);
            t = new T() { public void submit(Runnable r) { q.offer(r); } public void close() throws Exception { fed.set(true); vt.shutdown(); vt.awaitTermination(1, TimeUnit.MINUTES);} };
        } else if (peer.equals("floorc")) {
            // The no-pool floor started inside the clock: a virtual thread per task until there are cap of
            // them (each then polls one ConcurrentLinkedQueue), later tasks queued: the pool's and the TPE's shape.
            java.util.concurrent.ConcurrentLinkedQueue<Runnable> q = new java.util.concurrent.ConcurrentLinkedQueue<>();
            java.util.concurrent.atomic.AtomicBoolean fed = new java.util.concurrent.atomic.AtomicBoolean();
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
            int[] started = new int[1];
            t = new T() { public void submit(Runnable r) { if (started[0] < cap) { started[0]++; vt.execute(() -> { r.run(); for (;;) { Runnable n = q.poll(); if (n != null) n.run(); else if (fed.get() && q.isEmpty()) return; else LockSupport.parkNanos(50_000); } }); } else q.offer(r); } public void close() throws Exception { fed.set(true); vt.shutdown(); vt.awaitTermination(1, TimeUnit.MINUTES);} };
        } else if (peer.equals("tpe")) {
            ThreadPoolExecutor p = new ThreadPoolExecutor(cap, cap, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), Thread.ofVirtual().factory());
            t = new T() { public void submit(Runnable r) { p.execute(r); } public void close() throws Exception { p.shutdown(); p.awaitTermination(1, TimeUnit.MINUTES);} };
        } else {
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
            Semaphore s = new Semaphore(cap);
            t = new T() { public void submit(Runnable r) throws Exception { s.acquire(); vt.execute(() -> { try { r.run(); } finally { s.release(); } }); } public void close() throws Exception { vt.shutdown(); vt.awaitTermination(1, TimeUnit.MINUTES);} };
        }
        long pre = Long.getLong("pre.sleep", 0); if (pre > 0) Thread.sleep(pre);
        Runnable task = () -> {
            try { Thread.sleep(10); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            int r = remaining.decrementAndGet(); if (r % 50000 == 0) marks[r / 50000] = System.nanoTime(); if (r == 0) LockSupport.unpark(waiter);
        };
        for (int warm = Integer.getInteger("warm", 0); warm > 0; warm--) { // earlier runs in the same JVM, same peer (not printed)
            waiter = Thread.currentThread(); remaining.set(tasks);
            for (int i = 0; i < tasks; i++) t.submit(task);
            while (remaining.get() != 0) LockSupport.park();
        }
        java.util.Arrays.fill(marks, 0L);
        if (P != null && RSON) RS.append(" before: ").append(P);
        waiter = Thread.currentThread();
        remaining.set(tasks);
        long up0 = Boolean.getBoolean("uptime") ? java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() : -1;
        long t0 = System.nanoTime();
        String[] cpuAt = new String[2]; String[] cpuAt2 = new String[1];
        if (Boolean.getBoolean("cpu")) { cpuAt[0] = cpuByGroup(); Thread mon = new Thread(() -> { try { Thread.sleep(Long.getLong("cpu.at", 300)); } catch (InterruptedException e) { } cpuAt[1] = cpuByGroup(); try { Thread.sleep(Long.getLong("cpu.at2", 800)); } catch (InterruptedException e) { } cpuAt2[0] = cpuByGroup(); }); mon.setDaemon(true); mon.start(); }
        final Thread mainT = Thread.currentThread(); StringBuilder RAMP = new StringBuilder(); if (Boolean.getBoolean("ramp")) { final long tz = t0; Thread rm = new Thread(() -> { for (int k = 0; k < 40; k++) { try { Thread.sleep(10); } catch (InterruptedException e) { } synchronized (RAMP) { RAMP.append(' ').append((System.nanoTime() - tz) / 1000000).append(':').append(P == null ? -1 : P.running()).append('/').append((tasks - remaining.get()) / 1000); if (Boolean.getBoolean("mainst")) { StackTraceElement[] st = mainT.getStackTrace(); RAMP.append('[').append(st.length > 0 ? st[0].getMethodName() : "-").append('<').append(st.length > 1 ? st[1].getMethodName() : "-").append('<').append(st.length > 2 ? st[2].getMethodName() : "-").append('<').append(st.length > 3 ? st[3].getMethodName() : "-").append(']'); } } } }); rm.setDaemon(true); rm.start(); }
        long[] sm = new long[4]; for (int i = 0; i < tasks; i++) { t.submit(task); if (i == 9999) sm[0] = System.nanoTime(); if (P != null && RSON && (i % 2000 == 1999) && i < 40000) RS.append(' ').append(i + 1).append(':').append(P.running()).append('/').append(P.idle()).append(" q=").append(P.queued()); if (i == 99999) sm[1] = System.nanoTime(); } long ts = System.nanoTime();
        while (remaining.get() != 0) LockSupport.park();
        long t1 = System.nanoTime();
        StringBuilder sb = new StringBuilder(); for (int k = tasks / 50000 - 1; k >= 0; k--) sb.append(" ").append((marks[k] - t0) / 1000000); System.out.printf("%s %.3f s submit10k %d 100k %d all %d |%s%n", peer, (t1 - t0) / 1e9, (sm[0]-t0)/1000000, (sm[1]-t0)/1000000, (ts-t0)/1000000, sb);
        if (cpuAt[0] != null) System.out.println("CPU before" + cpuAt[0] + " | at" + cpuAt[1] + " | at2" + cpuAt2[0] + " | end" + cpuByGroup());
        if (up0 >= 0) System.out.println("UPTIME0 " + up0);
        if (RSON) System.out.println("RS" + RS);
        if (RAMP.length() > 0) synchronized (RAMP) { System.out.println("RAMP" + RAMP); }
        System.out.printf("T0 %.6f T1 %.6f%n", t0 / 1e9, t1 / 1e9); Thread.sleep(300); t.close();
    }
}
