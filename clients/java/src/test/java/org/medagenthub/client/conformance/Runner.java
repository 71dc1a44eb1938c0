package org.medagenthub.client.conformance;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.medagenthub.client.json.Json;

/**
 * The Java side of the shared conformance suite (clients/conformance/PROTOCOL.md):
 * {@code java -jar conformance.jar <hub-base-url>} with one case JSON on stdin prints exactly one
 * observation line of JSON and exits 0 — also when the observation is an error, since errors are what
 * several cases observe. It exits non-zero only when the runner itself breaks (no URL, a case it cannot read).
 */
public final class Runner {
    private Runner() {}

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        if (args.length != 1) {
            System.err.println("usage: java -jar conformance.jar <hub-base-url>  (case JSON on stdin)");
            System.exit(2);
        }
        Map<String, Object> testCase;
        try {
            testCase = Json.parseObject(new String(System.in.readAllBytes(), StandardCharsets.UTF_8));
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
    }
}
