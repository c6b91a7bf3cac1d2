#!/usr/bin/env bash
# Netty's own transport test suite (io.netty:netty-testsuite), which runs Netty's NIO transport over whatever
# SelectorProvider the JVM has: once over the JDK's (the baseline), once over uring4j's. Not part of ./uring4j test.
#   tools/external/netty-testsuite.sh [TestClass...]   (simple names; default: every class below but the excluded)
#   NETTY_JVM_OPTS="-Djava.net.preferIPv4Stack=true" ...  (JVM options for both sides)
# Exits 0 only if uring4j's side fails no test the JDK's side passes. Excluded: SCTP and UDT (native transports),
# multicast (it picks the first multicast interface, which is not loopback), and the connect timeout and cancel
# cases (they connect to a TEST-NET address); the one SSL case that needs netty-tcnative fails on both sides.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NETTY=4.2.21.Final
CONSOLE=1.13.4
OUT="$ROOT/tools/target/external/netty-testsuite"
PKG=io.netty.testsuite.transport

java_major() { # of the java binary $1: "25.0.1" -> 25, "1.8.0" -> 1
    "$1" -version 2>&1 | awk -F'"' '/version/ { split($2, v, /[.+-]/); print v[1] + 0; exit }'
}
JAVA=""
for home in ${JAVA_HOME:-} /usr/lib/jvm/*; do
    [[ -x "$home/bin/java" ]] && (( $(java_major "$home/bin/java") >= 25 )) && { JAVA="$home/bin/java"; break; }
done
[[ -n "$JAVA" ]] || { echo "netty-testsuite: no JDK >= 25 (set JAVA_HOME)" >&2; exit 1; }
export JAVA_HOME="${JAVA%/bin/java}" MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

# Maven 3.8 on JDK 25 prints stray colour resets even in batch mode; strip escape sequences.
plain() { sed -u -e 's/\x1b\[[0-9;]*m//g'; }
(cd "$ROOT" && mvn -B -ntp -q -DskipTests -pl core package 2>&1 | plain)
CORE="$(ls "$ROOT"/core/target/uring4j-[0-9]*.jar | head -1)"

mkdir -p "$OUT"
if [[ ! -f "$OUT/lib/netty-testsuite-$NETTY.jar" ]]; then
    cat > "$OUT/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>netty-testsuite-run</artifactId><version>0</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>io.netty</groupId><artifactId>netty-testsuite</artifactId>
      <version>$NETTY</version></dependency>
    <dependency><groupId>org.junit.platform</groupId><artifactId>junit-platform-console-standalone</artifactId>
      <version>$CONSOLE</version></dependency>
  </dependencies></project>
EOF
    mvn -B -ntp -q -f "$OUT/pom.xml" dependency:copy-dependencies -DoutputDirectory="$OUT/lib" 2>&1 | plain
fi
# The console launcher brings its own JUnit; logback unconfigured would log every DEBUG line.
CP="$(ls "$OUT"/lib/*.jar | grep -v -E '/(junit-jupiter|junit-platform-[a-z]+-[0-9]|opentest4j|apiguardian|logback)' \
    | paste -sd:)"

select=(--select-package "$PKG" --exclude-classname '.*(Sctp|UDT|Multicast).*')
(( $# )) && select+=(--include-classname ".*\\.($(IFS='|'; echo "$*"))")

run() { # side (jdk|uring), class path to add, JVM options...
    local side=$1 cp="$CP${2:+:$2}"; shift 2
    rm -rf "${OUT:?}/$side"; mkdir -p "$OUT/$side"
    echo "netty-testsuite: $side side (log: $OUT/$side/out.txt)" >&2
    # shellcheck disable=SC2086
    timeout 900 "$JAVA" ${NETTY_JVM_OPTS:-} "$@" -cp "$cp" org.junit.platform.console.ConsoleLauncher execute \
        --disable-banner --details=summary --reports-dir="$OUT/$side" "${select[@]}" \
        --exclude-methodname '.*SocketConnectionAttemptTest#testConnect(Timeout|Cancellation).*' \
        > "$OUT/$side/out.txt" 2>&1 || true
    # One line per test: class#test, then ok|fail|skip.
    awk '/<testcase / { if (n) print c "#" t "\t" s; n = 1; s = "ok"
                        match($0, / name="[^"]*"/); t = substr($0, RSTART + 7, RLENGTH - 8)
                        match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12); sub(/.*\./, "", c) }
         /<(failure|error)/ { s = "fail" } /<skipped/ { s = "skip" }
         END { if (n) print c "#" t "\t" s }' "$OUT/$side"/TEST-junit-jupiter.xml 2>/dev/null \
        | LC_ALL=C sort > "$OUT/$side.tests" || true
    [[ -s "$OUT/$side.tests" ]] || { echo "netty-testsuite: $side side left no report (timed out?)" >&2; exit 1; }
}
run jdk ""
run uring "$CORE" --enable-native-access=ALL-UNNAMED \
    -Djava.nio.channels.spi.SelectorProvider=io.uring4j.net.UringSelectorProvider \
    -Xlog:class+load=info:file="$OUT/uring/classes.txt"
grep -q 'io.uring4j.net.UringSelector ' "$OUT/uring/classes.txt" \
    || { echo "netty-testsuite: the flagged side never loaded UringSelector" >&2; exit 1; }

LC_ALL=C join -t $'\t' -a 1 -a 2 -e missing -o 0,1.2,2.2 "$OUT/jdk.tests" "$OUT/uring.tests" > "$OUT/both.tests"
awk -F'\t' '{ split($1, k, "#"); c = k[1]; cls[c] = 1
              if ($2 != "skip" && $2 != "missing") jr[c]++; if ($2 == "fail") jf[c]++
              if ($3 != "skip" && $3 != "missing") ur[c]++; if ($3 == "fail") uf[c]++ }
     END { for (c in cls) printf "%-40s %9d/%-4d %9d/%-4d\n", c, jr[c], jf[c], ur[c], uf[c] }' "$OUT/both.tests" \
    | sort -k1,1 | { printf "%-40s %14s %14s\n" class "JDK run/fail" "uring4j run/fail"; cat; }
awk -F'\t' '$2 != $3 { if (!n++) print "Outcomes that differ (JDK, uring4j):"; print "  " $1 ": " $2 ", " $3 }' \
    "$OUT/both.tests"
worse="$(awk -F'\t' '$2 == "ok" && ($3 == "fail" || $3 == "missing") { print "  " $1 }' "$OUT/both.tests")"
if [[ -n "$worse" ]]; then
    echo "Failed with uring4j's provider only (reports in $OUT/uring):"; echo "$worse"; exit 1
fi
echo "uring4j's provider fails nothing the JDK's passes."
