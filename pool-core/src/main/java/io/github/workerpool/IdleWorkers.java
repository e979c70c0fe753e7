package io.github.workerpool;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The idle workers of a pool, ordered by the time they went idle (ants' {@code workerQueue}).
 * Not thread-safe: the pool guards it with its lock. Both shapes keep the longest-idle worker
 * at the "oldest" end, so expiry can stop workers from there without scanning.
 */
abstract class IdleWorkers {

    abstract int size();

    /** Adds a worker that just went idle. */
    abstract void push(Worker w);

    /** Removes the worker to reuse next, or returns null. */
    abstract Worker pop();

    /** Returns the longest-idle worker without removing it, or null. */
    abstract Worker oldest();

    /** Removes and returns the longest-idle worker, or null. */
    abstract Worker pollOldest();

    /** Removes the given worker if present. */
    abstract boolean remove(Worker w);

    /** Removes every worker, oldest first, passing each to {@code sink}. */
    final int drain(Consumer<Worker> sink) {
        int n = 0;
        for (Worker w; (w = pollOldest()) != null; n++) {
            sink.accept(w);
        }
        return n;
    }

    /** LIFO: the most recently used worker is reused first, so hot threads stay hot (ants' stack). */
    static final class Stack extends IdleWorkers {
        private Worker[] items = new Worker[16];
        private int bottom; // index of the oldest; elements live in [bottom, top)
        private int top;

        @Override
        int size() {
            return top - bottom;
        }

        @Override
        void push(Worker w) {
            if (top == items.length) {
                int n = size();
                if (bottom > 0 && n < items.length / 2) {
                    System.arraycopy(items, bottom, items, 0, n);
                    Arrays.fill(items, n, top, null);
                } else {
                    Worker[] grown = new Worker[items.length * 2];
                    System.arraycopy(items, bottom, grown, 0, n);
                    items = grown;
                }
                bottom = 0;
                top = n;
            }
            items[top++] = w;
        }

        @Override
        Worker pop() {
            if (top == bottom) {
                return null;
            }
            Worker w = items[--top];
            items[top] = null;
            if (top == bottom) {
                top = bottom = 0;
            }
            return w;
        }

        @Override
        Worker oldest() {
            return top == bottom ? null : items[bottom];
        }

        @Override
        Worker pollOldest() {
            if (top == bottom) {
                return null;
            }
            Worker w = items[bottom];
            items[bottom++] = null;
            if (top == bottom) {
                top = bottom = 0;
            }
            return w;
        }

        @Override
        boolean remove(Worker w) {
            for (int i = top - 1; i >= bottom; i--) {
                if (items[i] == w) {
                    System.arraycopy(items, i + 1, items, i, top - i - 1);
                    items[--top] = null;
                    if (top == bottom) {
                        top = bottom = 0;
                    }
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * FIFO ring of fixed size, allocated up front (ants' {@code loopQueue} under PreAlloc):
     * the longest-idle worker is reused first, and pushing never allocates.
     */
    static final class Ring extends IdleWorkers {
        private final Worker[] items;
        private int head; // oldest
        private int size;

        Ring(int capacity) {
            items = new Worker[capacity];
        }

        @Override
        int size() {
            return size;
        }

        @Override
        void push(Worker w) {
            if (size == items.length) {
                // Cannot happen: live workers never exceed capacity, and tune is refused on preAlloc pools.
                throw new IllegalStateException("idle ring full");
            }
            items[(head + size++) % items.length] = w;
        }

        @Override
        Worker pop() {
            return pollOldest();
        }

        @Override
        Worker oldest() {
            return size == 0 ? null : items[head];
        }

        @Override
        Worker pollOldest() {
            if (size == 0) {
                return null;
            }
            Worker w = items[head];
            items[head] = null;
            head = (head + 1) % items.length;
            size--;
            return w;
        }

        @Override
        boolean remove(Worker w) {
            for (int i = 0; i < size; i++) {
                int at = (head + i) % items.length;
                if (items[at] == w) {
                    for (int j = i; j < size - 1; j++) {
                        items[(head + j) % items.length] = items[(head + j + 1) % items.length];
                    }
                    items[(head + size - 1) % items.length] = null;
                    size--;
                    return true;
                }
            }
            return false;
        }
    }
}
