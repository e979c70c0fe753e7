package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdleWorkersTest {

    private static Worker worker(long idleSince) {
        Worker w = new Worker(null, null);
        w.idleSince = idleSince;
        return w;
    }

    @Test
    void stack_popsMostRecentFirst_andExpiresOldestFirst() {
        IdleWorkers stack = new IdleWorkers.Stack();
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < 40; i++) { // beyond the initial array, to exercise growth
            Worker w = worker(i);
            ws.add(w);
            stack.push(w);
        }
        assertThat(stack.size()).isEqualTo(40);
        assertThat(stack.pop()).isSameAs(ws.get(39));
        assertThat(stack.oldest()).isSameAs(ws.get(0));
        assertThat(stack.pollOldest()).isSameAs(ws.get(0));
        assertThat(stack.remove(ws.get(20))).isTrue();
        assertThat(stack.remove(ws.get(20))).isFalse();
        assertThat(stack.size()).isEqualTo(37);
        List<Worker> drained = new ArrayList<>();
        assertThat(stack.drain(drained::add)).isEqualTo(37);
        assertThat(drained.get(0)).isSameAs(ws.get(1));
        assertThat(stack.pop()).isNull();
        assertThat(stack.oldest()).isNull();
    }

    @Test
    void stack_reusesFreedSpaceAtTheBottom() {
        IdleWorkers stack = new IdleWorkers.Stack();
        for (int round = 0; round < 100; round++) {
            stack.push(worker(round));
            stack.push(worker(round));
            stack.pollOldest();
        }
        assertThat(stack.size()).isEqualTo(100);
    }

    @Test
    void ring_popsOldestFirst_andWrapsAround() {
        IdleWorkers ring = new IdleWorkers.Ring(3);
        Worker a = worker(1);
        Worker b = worker(2);
        Worker c = worker(3);
        ring.push(a);
        ring.push(b);
        assertThat(ring.pop()).isSameAs(a);
        ring.push(c);
        ring.push(a);
        assertThat(ring.size()).isEqualTo(3);
        assertThat(ring.remove(c)).isTrue();
        assertThat(ring.pop()).isSameAs(b);
        assertThat(ring.pop()).isSameAs(a);
        assertThat(ring.pop()).isNull();
    }
}
