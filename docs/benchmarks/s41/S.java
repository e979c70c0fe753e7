import io.github.workerpool.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import java.util.concurrent.locks.LockSupport;

public class S {
    public static void main(String[] a) throws Exception {
        int tasks = 1_000_000, cap = 10_000;
        WorkerPool p = WorkerPool.builder().name("bench").capacity(cap).queueCapacity(Integer.MAX_VALUE).virtualThreads(true).build();
        AtomicInteger remaining = new AtomicInteger(tasks);
        Thread waiter = Thread.currentThread();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        StringBuilder out = new StringBuilder();
        long t0 = System.nanoTime();
        Thread mon = new Thread(() -> {
            long lastCpu = os.getProcessCpuTime(), lastT = System.nanoTime(); int lastDone = 0;
            while (remaining.get() > 0) {
                try { Thread.sleep(100); } catch (InterruptedException e) { return; }
                long cpu = os.getProcessCpuTime(), now = System.nanoTime();
                int done = tasks - remaining.get();
                PoolStats s = p.stats();
                out.append(String.format("%5d ms done/100ms %6d cpu %.2f running %5d idle %5d queued %7d%n", (now - t0) / 1_000_000, done - lastDone,
                    (cpu - lastCpu) / (double) (now - lastT), s.running(), s.idle(), s.queued()));
                lastCpu = cpu; lastT = now; lastDone = done;
            }
        });
        mon.setDaemon(true); mon.start();
        Runnable task = () -> {
            try { Thread.sleep(10); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            if (remaining.decrementAndGet() == 0) LockSupport.unpark(waiter);
        };
        for (int i = 0; i < tasks; i++) p.execute(task);
        while (remaining.get() != 0) LockSupport.park();
        System.out.printf("pool %.3f s%n", (System.nanoTime() - t0) / 1e9);
        System.out.print(out);
        p.shutdown();
    }
}
