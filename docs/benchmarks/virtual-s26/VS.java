import io.github.workerpool.WorkerPool;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.LockSupport;
import java.lang.reflect.*;

public class VS {
    static final AtomicInteger remaining = new AtomicInteger();
    static volatile Thread waiter;
    static final Thread[] seen = new Thread[2000]; static final AtomicInteger ns = new AtomicInteger();
    public static void main(String[] a) throws Exception {
        String peer = a[0]; int tasks = 1000000, cap = 10000;
        java.util.function.Consumer<Runnable> sub; Runnable close;
        if (peer.equals("pool")) {
            WorkerPool p = WorkerPool.builder().name("bench").capacity(cap).queueCapacity(Integer.MAX_VALUE).virtualThreads(true).build();
            sub = p::execute; close = p::shutdown;
        } else if (peer.equals("floorc")) {
            ConcurrentLinkedQueue<Runnable> q = new ConcurrentLinkedQueue<>(); AtomicBoolean fed = new AtomicBoolean();
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor(); int[] started = new int[1];
            sub = r -> { if (started[0] < cap) { started[0]++; vt.execute(() -> { r.run(); for (;;) { Runnable n = q.poll(); if (n != null) n.run(); else if (fed.get() && q.isEmpty()) return; else LockSupport.parkNanos(50_000); } }); } else q.offer(r); };
            close = () -> fed.set(true);
        } else {
            ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor(); Semaphore s = new Semaphore(cap);
            sub = r -> { try { s.acquire(); } catch (InterruptedException e) { throw new RuntimeException(e); } vt.execute(() -> { try { r.run(); } finally { s.release(); } }); };
            close = vt::shutdown;
        }
        Field cont = Class.forName("java.lang.VirtualThread").getDeclaredField("cont"); cont.setAccessible(true);
        Field tail = Class.forName("jdk.internal.vm.Continuation").getDeclaredField("tail"); tail.setAccessible(true);
        Class<?> sc = Class.forName("jdk.internal.vm.StackChunk");
        Field fsp = sc.getDeclaredField("sp"), fb = sc.getDeclaredField("bottom"), fsz = sc.getDeclaredField("size"), fpar = sc.getDeclaredField("parent");
        fsp.setAccessible(true); fb.setAccessible(true); fsz.setAccessible(true); fpar.setAccessible(true);
        long t0 = System.nanoTime();
        Runnable task = () -> {
            int rr = remaining.get();
            if (rr % 500 == 0 && System.nanoTime() - t0 > 600_000_000L) { int k = ns.getAndIncrement(); if (k < seen.length) seen[k] = Thread.currentThread(); }
            try { Thread.sleep(10); } catch (InterruptedException e) { }
            int r = remaining.decrementAndGet();
            if (r == 0) LockSupport.unpark(waiter);
        };
        Thread mon = new Thread(() -> {
            java.util.TreeMap<String, Integer> h = new java.util.TreeMap<>();
            int n = 100;
            for (int i = 0; i < n; i++) {
                while (seen[Math.min(i, seen.length - 1)] == null || ns.get() <= i) Thread.onSpinWait();
                long until = System.nanoTime() + 1_000_000; while (seen[i].getState() != Thread.State.TIMED_WAITING && System.nanoTime() < until) Thread.onSpinWait();
                try {
                    Object c = cont.get(seen[i]); Object ch = tail.get(c);
                    String key = ch == null ? "nochunk" : ("used=" + ((int) fb.get(ch) - (int) fsp.get(ch)) + "w size=" + fsz.get(ch) + (fpar.get(ch) != null ? " +parent" : ""));
                    h.merge(seen[i].getState() + " " + key, 1, Integer::sum);
                } catch (Exception e) { h.merge(e.toString(), 1, Integer::sum); }
            }
            h.forEach((k, v) -> System.out.println("  " + v + "\t" + k));
        });
        mon.setDaemon(true);
        waiter = Thread.currentThread(); remaining.set(tasks); mon.start();
        for (int i = 0; i < tasks; i++) sub.accept(task);
        while (remaining.get() != 0) LockSupport.park();
        System.out.printf("%s %.3f s%n", peer, (System.nanoTime() - t0) / 1e9);
        mon.join(); close.run(); System.exit(0);
    }
}
