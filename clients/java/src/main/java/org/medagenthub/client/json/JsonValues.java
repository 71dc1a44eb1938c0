package org.medagenthub.client.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Lenient typed reads from parsed JSON: a missing or differently typed value reads as absent, never as a crash. */
public final class JsonValues {
    private JsonValues() {}

    public static String string(Map<String, Object> map, String key) {
        Object value = map == null ? null : map.get(key);
        return value instanceof String ? (String) value : null;
    }

    public static Boolean bool(Map<String, Object> map, String key) {
        Object value = map == null ? null : map.get(key);
        return value instanceof Boolean ? (Boolean) value : null;
    }

    /** An integral number as an Integer (null when absent, fractional or out of int range). */
    public static Integer integer(Map<String, Object> map, String key) {
        return toInteger(map == null ? null : map.get(key));
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Map<String, Object> map, String key) {
        Object value = map == null ? null : map.get(key);
        return isObject(value) ? (Map<String, Object>) value : null;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(Map<String, Object> map, String key) {
        Object value = map == null ? null : map.get(key);
        return value instanceof List ? (List<Object>) value : Collections.emptyList();
    }

    /** The objects of an array, skipping items that are not objects. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> objects(Map<String, Object> map, String key) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object item : list(map, key)) if (isObject(item)) out.add((Map<String, Object>) item);
        return out;
    }

    /** The integers of an array, skipping items that are not integral numbers. */
    public static List<Integer> integers(Map<String, Object> map, String key) {
        List<Integer> out = new ArrayList<>();
        for (Object item : list(map, key)) {
            Integer n = toInteger(item);
            if (n != null) out.add(n);
        }
        return out;
    }

    public static boolean isObject(Object value) {
        return value instanceof Map;
    }

    private static Integer toInteger(Object value) {
        if (value instanceof Long) {
            long n = (Long) value;
            return n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? (int) n : null;
        }
        if (value instanceof Integer) return (Integer) value;
        if (value instanceof Double) {
            double d = (Double) value;
            return d == Math.rint(d) && Math.abs(d) <= Integer.MAX_VALUE ? (int) d : null;
        }
        return null;
    }
}
