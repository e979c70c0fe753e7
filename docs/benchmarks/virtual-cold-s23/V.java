import io.github.workerpool.WorkerPool;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class V {
    static final AtomicInteger remaining = new AtomicInteger();
    static volatile Thread waiter; static final long[] marks = new long[100]; static WorkerPool P; static final StringBuilder RS = new StringBuilder(); static final boolean RSON = System.getProperty("rs") != null;
    interface T { void submit(Runnable r) throws Exception; void close() throws Exception; }
    public static void main(String[] a) throws Exception {
        String peer = a[0];
        int tasks = Integer.parseInt(a.length > 1 ? a[1] : "1000000");
        int cap = 10000;
        T t;
        if (peer.equals("poolp")) { WorkerPool w = WorkerPool.builder().name("warm").capacity(4).queueCapacity(Integer.MAX_VALUE).build(); java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1); for (int i = 0; i < 4; i++) w.execute(() -> { try { gate.await(); } catch (InterruptedException e) { } }); for (int i = 0; i < 50000; i++) w.execute(() -> { }); w.shutdownNow(); gate.countDown(); w.awaitTermination(1, TimeUnit.MINUTES); peer = "pool"; }
        if (peer.equals("poolw")) { WorkerPool w = WorkerPool.builder().name("warm").capacity(4).queueCapacity(Integer.MAX_VALUE).build(); java.util.concurrent.CountDownLatch l = new java.util.concurrent.CountDownLatch(50000); for (int i = 0; i < 50000; i++) w.execute(l::countDown); l.await(); w.shutdown(); peer = "pool"; }
        if (peer.equals("pool")) {
            WorkerPool p = WorkerPool.builder().name("bench").capacity(cap).queueCapacity(Integer.MAX_VALUE).virtualThreads(true).build(); P = p;
            t = new T() { public void submit(Runnable r) throws Exception { p.execute(r); } public void close() throws Exception { p.shutdown(); p.awaitTermination(1, TimeUnit.MINUTES);} };
        } else if (peer.equals("floor")) {
            java.util.concurrent.ConcurrentLinkedQueue<Runnable> q = new java.util.concurrent.ConcurrentLinkedQueue<>();
            java.util.concurrent.atomic.AtomicBoolean fed = new java.util.concurrent.atomic.AtomicBoolean();
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor();
            Runnable loop = () -> { for (;;) { Runnable r = q.poll(); if (r != null) r.run(); else if (fed.get() && q.isEmpty()) return; else LockSupport.parkNanos(50_000); } };
            for (int i = 0; i < cap; i++) vt.execute(loop);
            t = new T() { public void submit(Runnable r) { q.offer(r); } public void close() throws Exception { fed.set(true); vt.shutdown(); vt.awaitTermination(1, TimeUnit.MINUTES);} };
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
        waiter = Thread.currentThread();
        remaining.set(tasks);
        long t0 = System.nanoTime();
        long[] sm = new long[4]; for (int i = 0; i < tasks; i++) { t.submit(task); if (i == 9999) sm[0] = System.nanoTime(); if (P != null && RSON && (i % 2000 == 1999) && i < 40000) RS.append(' ').append(i + 1).append(':').append(P.running()).append('/').append(P.idle()).append(" q=").append(P.queued()); if (i == 99999) sm[1] = System.nanoTime(); } long ts = System.nanoTime();
        while (remaining.get() != 0) LockSupport.park();
        long t1 = System.nanoTime();
        StringBuilder sb = new StringBuilder(); for (int k = tasks / 50000 - 1; k >= 0; k--) sb.append(" ").append((marks[k] - t0) / 1000000); System.out.printf("%s %.3f s submit10k %d 100k %d all %d |%s%n", peer, (t1 - t0) / 1e9, (sm[0]-t0)/1000000, (sm[1]-t0)/1000000, (ts-t0)/1000000, sb);
        System.out.printf("T0 %.6f T1 %.6f%n", t0 / 1e9, t1 / 1e9); Thread.sleep(300); t.close();
    }
}
