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
     * Only while some of the body has not arrived (or its length is unknown: chunked): closing
     * with unread bytes makes the kernel reset the connection, and a client may then lose the 503
     * and its Retry-After, so a body that is all there (most small ones come with the headers) is
     * read first, at once. Deciding on the declared length instead let a slow client hold the
     * thread with a small body it never finished (found by a review).
     */

    RefusedUploadValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        getNext().invoke(request, response);
        if (request.getAttribute(AdmissionFilter.REFUSED_ATTRIBUTE) != null && bodyNotAllThere(request)) {
            request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }
    }

    private static boolean bodyNotAllThere(Request request) {
        long length = request.getContentLengthLong();
        if (length < 0) {
            return request.getHeader("Transfer-Encoding") != null; // chunked: how much is left is unknown
        }
        org.apache.coyote.Request coyote = request.getCoyoteRequest();
        long rest = length - coyote.getBytesRead();
        if (rest <= 0) {
            return false;
        }
        coyote.action(ActionCode.AVAILABLE, Boolean.TRUE); // what is buffered, after a read that does not block
        return coyote.getAvailable() < rest;
    }

}
