import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * For tools/external/*.sh: {@code provider} prints the default file system's provider class (run with the flag, it
 * shows the flag took); {@code JDK.xml OURS.xml} compares two JUnit console reports per class and lists the tests
 * that pass on the JDK's side and not on ours (failed, or never finished) — exit status 1 if there are any.
 */
public class CompareReports {
    /** Per test (class#name): whether it passed; skipped tests are left out. */
    static Map<String, Boolean> results(String report) throws Exception {
        Map<String, Boolean> results = new TreeMap<>();
        NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of(report).toFile())
                .getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element c = (Element) cases.item(i);
            if (c.getElementsByTagName("skipped").getLength() == 0) {
                boolean failed = c.getElementsByTagName("failure").getLength() + c.getElementsByTagName("error")
                        .getLength() > 0;
                results.merge(c.getAttribute("classname") + "#" + c.getAttribute("name"), !failed, Boolean::logicalAnd);
            }
        }
        return results;
    }

    static String perClass(Map<String, Boolean> results, String cls) {
        long run = 0, failed = 0;
        for (var e : results.entrySet()) {
            if (e.getKey().startsWith(cls + "#")) {
                run++;
                failed += e.getValue() ? 0 : 1;
            }
        }
        return String.format("%5d %5d", run, failed);
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("provider")) {
            System.out.println(FileSystems.getDefault().provider().getClass().getName());
            return;
        }
        Map<String, Boolean> jdk = results(args[0]), ours = results(args[1]);
        Set<String> classes = new TreeSet<>();
        for (String test : jdk.keySet()) {
            classes.add(test.substring(0, test.indexOf('#')));
        }
        System.out.printf("%-75s %11s %11s%n", "class (classes that failed something on either side)", "JDK run/fail",
                "flag run/fail");
        for (String cls : classes) {
            String a = perClass(jdk, cls), b = perClass(ours, cls);
            if (!a.endsWith(" 0") || !b.endsWith(" 0") || !a.equals(b)) {
                System.out.printf("%-75s %11s %11s%n", cls, a, b);
            }
        }
        System.out.printf("%-75s %11s %11s%n", "all " + classes.size() + " classes",
                String.format("%5d %5d", jdk.size(), jdk.values().stream().filter(p -> !p).count()),
                String.format("%5d %5d", ours.size(), ours.values().stream().filter(p -> !p).count()));
        Set<String> ourFailures = new TreeSet<>();
        jdk.forEach((test, passed) -> {
            if (passed && !ours.getOrDefault(test, false)) {
                ourFailures.add(test);
            }
        });
        System.out.println(ourFailures.isEmpty() ? "\nNo test fails with the flag that passes without it."
                : "\nPass without the flag, fail (or never finish) with it:");
        ourFailures.forEach(test -> System.out.println("  " + test));
        System.exit(ourFailures.isEmpty() ? 0 : 1);
    }
}
