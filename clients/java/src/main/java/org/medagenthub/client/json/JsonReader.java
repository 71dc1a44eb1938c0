package org.medagenthub.client.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Recursive-descent parser behind {@link Json#parse}: strict RFC 8259, error messages name the offset. */
final class JsonReader {
    /** Deep enough for any envelope; bounds recursion so hostile input cannot overflow the stack. */
    private static final int MAX_DEPTH = 512;

    private final String text;
    private int pos;
    private int depth;

    JsonReader(String text) {
        this.text = text;
    }

    Object readDocument() {
        skipWhitespace();
        Object value = readValue();
        skipWhitespace();
        if (pos != text.length()) throw error("unexpected text after the JSON value");
        return value;
    }

    private Object readValue() {
        if (pos >= text.length()) throw error("unexpected end of input");
        char c = text.charAt(pos);
        switch (c) {
            case '{': return readObject();
            case '[': return readArray();
            case '"': return readString();
            case 't': return readLiteral("true", Boolean.TRUE);
            case 'f': return readLiteral("false", Boolean.FALSE);
            case 'n': return readLiteral("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return readNumber();
                throw error("unexpected character '" + c + "'");
        }
    }

    private Map<String, Object> readObject() {
        enter();
        pos++; // {
        Map<String, Object> object = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return object;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') throw error("expected a string key");
            String key = readString();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            object.put(key, readValue());
            skipWhitespace();
            char c = next();
            if (c == '}') break;
            if (c != ',') throw error("expected ',' or '}' in object");
        }
        depth--;
        return object;
    }

    private List<Object> readArray() {
        enter();
        pos++; // [
        List<Object> array = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return array;
        }
        while (true) {
            skipWhitespace();
            array.add(readValue());
            skipWhitespace();
            char c = next();
            if (c == ']') break;
            if (c != ',') throw error("expected ',' or ']' in array");
        }
        depth--;
        return array;
    }

    private String readString() {
        pos++; // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) throw error("unterminated string");
            char c = text.charAt(pos++);
            if (c == '"') return out.toString();
            if (c < 0x20) throw error("raw control character in string");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u': out.append(readHex4()); break;
                default: throw error("invalid escape '\\" + e + "'");
            }
        }
    }

    private char readHex4() {
        if (pos + 4 > text.length()) throw error("truncated \\u escape");
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos++), 16);
            if (digit < 0) throw error("invalid \\u escape");
            value = value * 16 + digit;
        }
        return (char) value; // surrogate pairs arrive as two escapes and join in the StringBuilder
    }

    private Object readNumber() {
        int start = pos;
        if (peek() == '-') pos++;
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            while (isDigit(peek())) pos++;
        } else {
            throw error("invalid number");
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!isDigit(peek())) throw error("invalid number: digit expected after '.'");
            while (isDigit(peek())) pos++;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') pos++;
            if (!isDigit(peek())) throw error("invalid number: digit expected in exponent");
            while (isDigit(peek())) pos++;
        }
        String literal = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(literal);
            } catch (NumberFormatException tooBig) {
                return Double.parseDouble(literal);
            }
        }
        return Double.parseDouble(literal);
    }

    private Object readLiteral(String literal, Object value) {
        if (!text.startsWith(literal, pos)) throw error("invalid literal");
        pos += literal.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            pos++;
        }
    }

    private void expect(char c) {
        if (next() != c) throw error("expected '" + c + "'");
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private char next() {
        if (pos >= text.length()) throw error("unexpected end of input");
        return text.charAt(pos++);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private JsonException error(String message) {
        return new JsonException(message + " at offset " + pos);
    }
}
