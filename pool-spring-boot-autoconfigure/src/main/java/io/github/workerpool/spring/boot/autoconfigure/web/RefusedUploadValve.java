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
     */

    RefusedUploadValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        getNext().invoke(request, response);
        if (request.getAttribute(AdmissionFilter.REFUSED_ATTRIBUTE) != null) {
            request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }
    }

}
