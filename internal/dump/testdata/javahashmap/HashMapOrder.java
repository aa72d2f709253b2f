// The oracle for report/javaorder_test.go: replays calls on real
// java.util.HashMaps and prints their iteration order. Run as
// `java HashMapOrder.java` (a single-file source program, JDK 11+).
//
// stdin, one command a line:
//   S | L        start a map with String | Long keys
//   c KEY        computeIfAbsent(KEY, k -> value)
//   p KEY        put(KEY, value)
//   .            print the map's keys in iteration order, one a line, then "."
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

public class HashMapOrder {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        Map<Object, Object> m = null;
        boolean longs = false;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("S") || line.equals("L")) {
                m = new HashMap<>();
                longs = line.equals("L");
            } else if (line.equals(".")) {
                for (Object k : m.keySet()) {
                    out.println(k);
                }
                out.println(".");
            } else {
                String s = line.substring(2);
                Object k = longs ? (Object) Long.valueOf(s) : s;
                if (line.charAt(0) == 'c') {
                    m.computeIfAbsent(k, x -> Boolean.TRUE);
                } else {
                    m.put(k, Boolean.TRUE);
                }
            }
        }
        out.flush();
    }
}
