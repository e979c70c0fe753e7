package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.IOException;

import jakarta.servlet.ServletException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;

/**
 * Lets Tomcat close the connection of a request the admission filter refused without reading the
 * rest of its body first.
 */
final class RefusedUploadValve extends ValveBase {

    /*
     * After the 503, Tomcat reads (swallows) what is left of the request's body, up to its
     * max-swallow-size (2 MB), with blocking reads on the thread that wrote the 503: one of the
     * reserved threads, held until the client sent it all, closed, or the read timed out. Two slow
     * uploads held the default reserve of 2, and every new request waited in the pool's queue.
     * DISABLE_SWALLOW_INPUT, as Tomcat does for an upload it aborts, finishes the 503 and closes
     * the connection (which the 503 announced already) without reading on.
     *
     * Only for a body larger than SWALLOW_LIMIT, or of unknown length (chunked): closing with
     * unread bytes makes the kernel reset the connection, and a client may then lose the 503 and
     * its Retry-After. A small body is read at once, as Tomcat reads it to let the client read
     * the answer (most of it has come with the headers).
     */

    /** Largest body, in bytes, Tomcat still reads after the 503 (a few packets, read at once). */
    static final long SWALLOW_LIMIT = 64 * 1024;

    RefusedUploadValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        getNext().invoke(request, response);
        if (request.getAttribute(AdmissionFilter.REFUSED_ATTRIBUTE) != null && largeOrUnknownBody(request)) {
            request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }
    }

    private static boolean largeOrUnknownBody(Request request) {
        long length = request.getContentLengthLong();
        return length > SWALLOW_LIMIT || (length < 0 && request.getHeader("Transfer-Encoding") != null);
    }

}
