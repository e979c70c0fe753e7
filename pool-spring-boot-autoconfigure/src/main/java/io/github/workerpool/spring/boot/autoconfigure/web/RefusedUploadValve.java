package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.IOException;

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
     * So this valve reads, without waiting, what has come of a refused body (up to DRAIN_LIMIT):
     * if that was all of it, Tomcat closes cleanly; if some has not come (or there is more than
     * the limit), DISABLE_SWALLOW_INPUT, as Tomcat does for an upload it aborts, finishes the 503
     * and closes without waiting for it. Closing with unread bytes makes the kernel reset the
     * connection, and a client may then lose the 503: a body that has all come is read first, one
     * of a slow client is not waited for (deciding on the declared length held the thread for a
     * small body never finished, and reading only what Tomcat had buffered, at most 16 KB, reset
     * bodies that had all come; found by reviews). A chunked body is not read (its reads may
     * block). HTTP/1.x only: HTTP/2 resets an unread stream itself, and AJP's non-blocking check
     * may block.
     */

    /** Most of a refused body read before the 503's connection closes. */
    static final int DRAIN_LIMIT = 64 * 1024;

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
        if ((refused || !request.isAsync()) && isHttp11(request) && !readWhatHasCome(request)) {
            request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }
    }

    /** HTTP/1.1 and 1.0 (Tomcat swallows both), not HTTP/2 over the same connector, nor AJP. */
    private static boolean isHttp11(Request request) {
        return request.getConnector().getProtocolHandler() instanceof AbstractHttp11Protocol<?>
                && !"HTTP/2.0".equals(request.getProtocol());
    }

    /** Reads what has come of the body without waiting, up to DRAIN_LIMIT; true if that was all of it. */
    private static boolean readWhatHasCome(Request request) {
        long length = request.getContentLengthLong();
        if (length < 0) {
            // No body, or a chunked one: what Tomcat counts as available then includes the chunks'
            // framing, and a read may block for the next chunk's header; it is not read.
            return request.getHeader("Transfer-Encoding") == null;
        }
        org.apache.coyote.Request coyote = request.getCoyoteRequest();
        if (coyote.getBytesRead() >= length) {
            return true; // all read (the usual admitted request), maybe through a reader: keep the connection
        }
        try {
            ServletInputStream in = request.getInputStream();
            byte[] buffer = new byte[8192];
            for (long left = DRAIN_LIMIT; ; ) {
                if (coyote.getBytesRead() >= length) {
                    return true;
                }
                if (left <= 0) {
                    return false;
                }
                coyote.action(ActionCode.AVAILABLE, Boolean.TRUE); // one read that does not block, if nothing is buffered
                if (coyote.getAvailable() <= 0) {
                    return false; // the rest has not come: do not wait for it
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

}
