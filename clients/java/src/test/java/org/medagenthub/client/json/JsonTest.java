package org.medagenthub.client.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {
    @Test
    void parsesEveryValueTypeKeepingKeyOrder() {
        Map<String, Object> o = Json.parseObject(" {\"z\":1,\"a\":[true,false,null],\"s\":\"x\",\"d\":-1.5e2,\"n\":{}} ");
        assertEquals(List.of("z", "a", "s", "d", "n"), List.copyOf(o.keySet()));
        assertEquals(1L, o.get("z"));
        assertEquals(Arrays.asList(true, false, null), o.get("a"));
        assertEquals("x", o.get("s"));
        assertEquals(-150.0, o.get("d"));
        assertEquals(Map.of(), o.get("n"));
    }

    @Test
    void decodesEscapesIncludingSurrogatePairs() {
        assertEquals("a\"b\\c/d\b\f\n\r\t\u00e9\ud83d\ude00", Json.parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\""));
    }

    @Test
    void integersTooBigForLongBecomeDoubles() {
        assertEquals(1e20, Json.parse("100000000000000000000"));
        assertEquals(Long.MAX_VALUE, Json.parse(String.valueOf(Long.MAX_VALUE)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", "-", "1e", "tru", "\"a", "\"\\x\"", "\"\\u12\"", "{} {}", "\"a\nb\"", "[1 2]", "{\"a\" 1}", "NaN"})
    void rejectsWhatIsNotJson(String text) {
        assertThrows(JsonException.class, () -> Json.parse(text));
    }

    @Test
    void boundsNesting() {
        assertThrows(JsonException.class, () -> Json.parse("[".repeat(10_000) + "]".repeat(10_000)));
    }

    @Test
    void parseObjectRefusesOtherValues() {
        for (String text : List.of("[]", "\"x\"", "1", "null", "true")) assertThrows(JsonException.class, () -> Json.parseObject(text), text);
    }

    @Test
    void writesCompactJsonThatParsesBack() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("text", "line1\nline2\r\"q\"\\ \u0001 \u2028");
        value.put("list", Arrays.asList(1L, 2.5, true, null, "s"));
        value.put("count", 3.0);
        String text = Json.write(value);
        assertEquals("{\"text\":\"line1\\nline2\\r\\\"q\\\"\\\\ \\u0001 \\u2028\",\"list\":[1,2.5,true,null,\"s\"],\"count\":3}", text);
        Map<String, Object> back = Json.parseObject(text);
        assertEquals(value.get("text"), back.get("text"));
        assertEquals(value.get("list"), back.get("list"));
    }

    @Test
    void refusesNonFiniteNumbersAndUnknownTypes() {
        assertThrows(JsonException.class, () -> Json.write(Double.NaN));
        assertThrows(JsonException.class, () -> Json.write(new Object()));
    }

    @Test
    void lenientReadsNeverThrow() {
        Map<String, Object> o = Json.parseObject("{\"s\":1,\"n\":\"x\",\"list\":[1,\"a\",2.0,2.5,{}],\"o\":[]}");
        assertNull(JsonValues.string(o, "s"));
        assertNull(JsonValues.integer(o, "n"));
        assertEquals(List.of(1, 2), JsonValues.integers(o, "list"));
        assertEquals(1, JsonValues.objects(o, "list").size());
        assertNull(JsonValues.object(o, "o"));
        assertEquals(List.of(), JsonValues.list(null, "x"));
    }
}
