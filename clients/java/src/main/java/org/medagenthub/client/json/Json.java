package org.medagenthub.client.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small RFC 8259 JSON reader and writer, so the client needs no runtime dependency.
 *
 * <p>Values map to plain Java types: object → {@link LinkedHashMap} (key order kept), array → {@link ArrayList},
 * string → {@link String}, integral number → {@link Long} (a {@link Double} when it does not fit), other number →
 * {@link Double}, {@code true}/{@code false} → {@link Boolean}, {@code null} → {@code null}.
 */
public final class Json {
    private Json() {}

    /** Parses one JSON text; anything but whitespace after the value is an error. */
    public static Object parse(String text) {
        return new JsonReader(text).readDocument();
    }

    /** Parses one JSON text that must be an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) throw new JsonException("expected a JSON object, got " + typeName(value));
        return (Map<String, Object>) value;
    }

    /** Compact JSON text of a value built from the types above (any {@link Map}, {@link Iterable} or {@link Number}). */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        JsonWriter.write(value, out);
        return out.toString();
    }

    /** The JSON type name of a parsed value, for error messages. */
    public static String typeName(Object value) {
        if (value == null) return "null";
        if (value instanceof Map) return "object";
        if (value instanceof List) return "array";
        if (value instanceof String) return "string";
        if (value instanceof Number) return "number";
        if (value instanceof Boolean) return "boolean";
        return value.getClass().getSimpleName();
    }
}
