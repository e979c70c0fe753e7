package io.github.workerpool;

import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/** Thread factories for workers; virtual threads are reached reflectively so the jar stays Java 17 bytecode. */
final class Threads {

    private Threads() {
    }

    /**
     * A daemon thread of the library's own (the purger, task-group deadlines), shared by every
     * pool and alive as long as there is work for it: it takes nothing from the thread that
     * happens to make it, so that it keeps no application's class loader reachable after that
     * application is undeployed. No inherited thread locals, normal priority, {@code loader} as
     * its context class loader, and made inside doPrivileged: on Java 17 a thread keeps the access
     * control context of its maker's stack, whose protection domains hold the maker's loaders.
     */
    @SuppressWarnings("removal")
    static Thread libraryDaemon(Runnable r, String name, ClassLoader loader) {
        return java.security.AccessController.doPrivileged((java.security.PrivilegedAction<Thread>) () -> {
            Thread t = new Thread(null, r, name, 0, false);
            t.setDaemon(true);
            t.setPriority(Thread.NORM_PRIORITY);
            t.setContextClassLoader(loader);
            return t;
        });
    }

    /** Whether this JVM can start virtual threads (Java 21 or newer). */
    static boolean virtualThreadsSupported() {
        return Runtime.version().feature() >= 21;
    }

    /**
     * Platform, non-daemon threads of normal priority named {@code name-1}, {@code name-2}, ...,
     * with the context class loader of the thread that calls this (the one building the pool).
     * A worker is made on whichever thread submits when it is needed and then runs everyone's
     * tasks: it takes neither that thread's priority (a low-priority batch thread that submitted
     * first slowed every worker) nor its inheritable thread locals (one caller's security or
     * logging context seen by the tasks of all). Without inherited thread locals Java 19+ gives a
     * thread the system class loader, which cannot see an executable jar's classes: hence the
     * builder's loader, set on each.
     */
    static ThreadFactory platform(String name) {
        AtomicLong seq = new AtomicLong();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return r -> {
            Thread t = new Thread(null, r, name + "-" + seq.incrementAndGet(), 0, false);
            t.setDaemon(false);
            t.setPriority(Thread.NORM_PRIORITY);
            t.setContextClassLoader(loader);
            return t;
        };
    }

    /** Virtual threads named {@code name-1}, {@code name-2}, ...; needs Java 21+. */
    static ThreadFactory virtual(String name) {
        if (!virtualThreadsSupported()) {
            throw new IllegalStateException("virtualThreads(true) needs Java 21 or newer, but this JVM is Java "
                    + Runtime.version() + "; run on Java 21+ or use platform threads (virtualThreads(false))");
        }
        return virtualFactory(name + "-");
    }

    /**
     * Unnamed virtual threads (the caller names them); needs Java 21+. A virtual worker moving to
     * a new thread keeps its name, so it must not take a number from its pool's named factory.
     */
    static ThreadFactory virtualUnnamed() {
        return virtualFactory(null);
    }

    /**
     * Thread.ofVirtual()[.name(prefix, 1)].inheritInheritableThreadLocals(false).factory(),
     * reflectively; prefix null: unnamed. No inherited thread locals, and the caller's context
     * class loader, as for platform workers.
     */
    private static ThreadFactory virtualFactory(String prefix) {
        ThreadFactory factory = plainVirtualFactory(prefix);
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return r -> {
            Thread t = factory.newThread(r);
            t.setContextClassLoader(loader);
            return t;
        };
    }

    private static ThreadFactory plainVirtualFactory(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> type = Class.forName("java.lang.Thread$Builder");
            builder = type.getMethod("inheritInheritableThreadLocals", boolean.class).invoke(builder, false);
            if (prefix != null) {
                Method named = type.getMethod("name", String.class, long.class);
                builder = named.invoke(builder, prefix, 1L);
            }
            return (ThreadFactory) type.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not create a virtual thread factory on Java " + Runtime.version(), e);
        }
    }

    /** Whether the thread is virtual; false on Java 17. */
    static boolean isVirtual(Thread t) {
        if (!virtualThreadsSupported()) {
            return false;
        }
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
