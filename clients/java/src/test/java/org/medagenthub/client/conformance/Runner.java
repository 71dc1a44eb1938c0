package org.medagenthub.client.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.medagenthub.client.json.Json;

/**
 * The Java side of the shared conformance suite (clients/conformance/PROTOCOL.md):
 * {@code java -jar conformance.jar <hub-base-url>} reads one case as a line of JSON on stdin, prints exactly
 * one observation line of JSON, then stays alive until stdin ends and exits 0 — also when the observation is
 * an error, since errors are what several cases observe. Staying alive lets the driver check the hub's and
 * router's state (a closed or cancelled stream freed its router slot) while this process and its HTTP client
 * still exist, so the check proves what close() and cancel() do, not what process exit does. It exits
 * non-zero only when the runner itself breaks (no URL, a case it cannot read).
 */
public final class Runner {
    private Runner() {}

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        if (args.length != 1) {
            System.err.println("usage: java -jar conformance.jar <hub-base-url>  (case JSON on stdin)");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Map<String, Object> testCase;
        try {
            String line = in.readLine();
            if (line == null) throw new IllegalStateException("stdin ended before a case");
            testCase = Json.parseObject(line);
        } catch (RuntimeException e) {
            System.err.println("conformance runner: the case on stdin is not a JSON object: " + e.getMessage());
            System.exit(2);
            return;
        }
        Map<String, Object> observation;
        try {
            observation = new CaseRunner(args[0], testCase).run();
        } catch (IllegalArgumentException e) {
            System.err.println("conformance runner: " + e.getMessage());
            System.exit(2);
            return;
        }
        out.println(Json.write(observation));
        // Held until the driver has checked the state after the case (it ends stdin then).
        while (in.read() != -1) {
            // discard: nothing more is expected on stdin
        }
    }
}
