package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;
import org.apache.coyote.http11.AbstractHttp11Protocol;

/**
 * Lets Tomcat close the connection of a request the admission filter refused, or one whose body
 * the application left unread, without reading the rest of its body first.
 */
final class RefusedUploadValve extends ValveBase {

    /*
     * After the 503, Tomcat reads (swallows) what is left of the request's body, up to its
     * max-swallow-size (2 MB), with blocking reads on the thread that wrote the 503: one of the
     * reserved threads, held until the client sent it all, closed, or the read timed out. Two slow
     * uploads held the default reserve of 2, and every new request waited in the pool's queue.
     *
     * So this valve reads, without waiting, what has come of a refused body (up to the
     * connector's max-swallow-size): if that was all of it, Tomcat closes cleanly; if some has
     * not come (or there is more than that), DISABLE_SWALLOW_INPUT, as Tomcat does for an upload
     * it aborts, finishes the 503 and closes without waiting for it. An admitted request's unread
     * body is waited for a little (ADMITTED_WAIT_NANOS), counted as the application's. Closing
     * with unread bytes makes the kernel reset the connection, and a client may then lose the 503: a body that has all come is read first, one
     * of a slow client is not waited for (deciding on the declared length held the thread for a
     * small body never finished, and reading only what Tomcat had buffered, at most 16 KB, reset
     * bodies that had all come; found by reviews). A chunked body is not read (its reads may
     * block). HTTP/1.x only: HTTP/2 resets an unread stream itself, and AJP's non-blocking check
     * may block.
     */

    /**
     * How long an admitted request's unread body is waited for, counted as the application's
     * again: a client that sent it in full gets its answer on a connection kept open, as from
     * Tomcat alone; a slow one holds the thread no longer than this.
     */
    static final long ADMITTED_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    RefusedUploadValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        getNext().invoke(request, response);
        // Not only refused requests: an admitted one whose body the application did not read (a
        // 404, 405 or 401 to an upload) would hold its thread swallowing the rest after the filter
        // stopped counting it (found by a review). Not an async one: its body may still be read.
        boolean refused = request.getAttribute(AdmissionFilter.REFUSED_ATTRIBUTE) != null;
        long length = request.getContentLengthLong();
        if ((!refused && request.isAsync()) || !isHttp11(request) || allRead(request, length)) {
            return;
        }
        long limit = swallowLimit(request);
        if (length < 0 || length - request.getCoyoteRequest().getBytesRead() > limit) {
            // Chunked (a read may block for the next chunk's header), or more than Tomcat itself
            // would swallow (it would close too): nothing is read, the answer goes, the connection closes.
            disableSwallow(request, response);
            return;
        }
        // An admitted request's body is read while it counts as the application's again, for a
        // while (helper-149: read only as far as it had come, up to 64 KB, a 401 or 405 to an
        // upload of 100 KB lost its connection with a reset, on an idle server). A refused one
        // runs on a reserved thread and waits for nothing.
        AtomicInteger count = refused ? null
                : (request.getAttribute(AdmissionFilter.COUNT_ATTRIBUTE) instanceof AtomicInteger c) ? c : null;
        if (count != null) {
            count.incrementAndGet();
        }
        try {
            // Before the answer, which Tomcat writes once the context's pipeline (and the error
            // page) returns: a slow client gets it up to ADMITTED_WAIT_NANOS later. (From the
            // engine's pipeline the body could no longer be read.)
            if (!drain(request, length, limit, (count != null) ? ADMITTED_WAIT_NANOS : 0)) {
                disableSwallow(request, response);
            }
        }
        finally {
            if (count != null) {
                count.decrementAndGet();
            }
        }
    }

    /** HTTP/1.1 and 1.0 (Tomcat swallows both), not HTTP/2 over the same connector, nor AJP. */
    private static boolean isHttp11(Request request) {
        return request.getConnector().getProtocolHandler() instanceof AbstractHttp11Protocol<?>
                && !"HTTP/2.0".equals(request.getProtocol());
    }

    /** No body, or all of it read (the usual request, maybe through a reader), a chunked one too. */
    private static boolean allRead(Request request, long length) {
        if (length == 0 || (length < 0 && request.getHeader("Transfer-Encoding") == null)) {
            return true;
        }
        // helper-150: a chunked body read to its end closed its connection (it was never asked).
        return (length > 0 && request.getCoyoteRequest().getBytesRead() >= length) || request.getCoyoteRequest().isFinished();
    }

    /** The connector's max-swallow-size (2 MB unless set; no limit read as 2 MB: a reserved thread reads it). */
    private static long swallowLimit(Request request) {
        int maxSwallow = ((AbstractHttp11Protocol<?>) request.getConnector().getProtocolHandler()).getMaxSwallowSize();
        return (maxSwallow < 0) ? 2L * 1024 * 1024 : maxSwallow;
    }

    /** Closes the connection after the answer without reading the rest, and says so if it still can. */
    private static void disableSwallow(Request request, Response response) {
        if (!response.isCommitted()) {
            response.setHeader("Connection", "close"); // the client must not reuse it
        }
        org.apache.coyote.Response coyote = response.getCoyoteResponse();
        boolean error = coyote.isError();
        int status = coyote.getStatus();
        request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        if (!error) {
            // The action also marks the answer as failed (a status under 400 becomes 500, and the
            // host's valve then renders the error page over it: review helper-158). Only the close
            // is meant: the application's answer stands; the connection still closes after it.
            coyote.resetError();
            coyote.setStatus(status);
        }
    }

    /**
     * Reads the rest of a body of known length, up to {@code limit}, as far as it has come and then
     * as it comes for at most {@code waitNanos}, never in a read that blocks; true if that was
     * all of it.
     */
    private static boolean drain(Request request, long length, long limit, long waitNanos) {
        org.apache.coyote.Request coyote = request.getCoyoteRequest();
        long deadline = System.nanoTime() + waitNanos;
        try {
            ServletInputStream in = request.getInputStream();
            byte[] buffer = new byte[8192];
            for (long left = limit; ; ) {
                if (coyote.getBytesRead() >= length) {
                    return true;
                }
                if (left <= 0) {
                    return false; // more than Tomcat itself would swallow
                }
                coyote.action(ActionCode.AVAILABLE, Boolean.TRUE); // one read that does not block, if nothing is buffered
                if (coyote.getAvailable() <= 0) {
                    if (System.nanoTime() - deadline >= 0) {
                        return false; // the rest has not come: do not wait for it
                    }
                    LockSupport.parkNanos(POLL_NANOS);
                    continue;
                }
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    return true;
                }
                left -= n;
            }
        }
        catch (IOException | IllegalStateException ex) { // IllegalStateException: the application took the reader
            return false;
        }
    }

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

}
