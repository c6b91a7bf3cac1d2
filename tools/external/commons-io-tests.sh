#!/usr/bin/env bash
# Apache Commons IO's own tests (commons-io:commons-io:2.22.0:tests) on the JDK's default file system provider and
# on uring4j's, installed as an unmodified application gets it: with the system property. Exit status 0 only if
# every test the JDK's side passes passes with the flag too. Takes about 15 minutes; not part of ./uring4j test.
#   tools/external/commons-io-tests.sh [JUnit console selectors, default: the whole tests jar]
#   e.g. tools/external/commons-io-tests.sh --select-package org.apache.commons.io.file
# Output in tools/target/external/commons-io: jdk.log, flag.log (a hang's thread dump too), reports per side.
# URING4J_OPTS: more JVM options for the flagged side, e.g. -During4j.engine=portable.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/tools/target/external/commons-io"
PROVIDER=io.uring4j.fs.UringFileSystemProvider

# A JDK >= 25, as ./uring4j picks it: JAVA_HOME if recent enough, else the newest under /usr/lib/jvm.
major() { "$1" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print v[1]; exit }'; }
if [[ -z "${JAVA_HOME:-}" || "$(major "$JAVA_HOME/bin/java")" -lt 25 ]]; then
    JAVA_HOME="$(for d in /usr/lib/jvm/*/; do if [[ -x "$d/bin/javac" ]]; then echo "$(major "$d/bin/java") ${d%/}"; fi
        done | sort -n | awk '$1 >= 25 { home = $2 } END { print home }')"
    [[ -n "$JAVA_HOME" ]] || { echo "commons-io-tests: no JDK >= 25 (set JAVA_HOME)" >&2; exit 1; }
fi
export JAVA_HOME MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
JAVA="$JAVA_HOME/bin/java"

rm -rf "$OUT" && mkdir -p "$OUT"
mvn -B -ntp -q -f "$ROOT/tools/external/commons-io-tests.pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$OUT/lib"
(cd "$ROOT" && mvn -B -ntp -q -DskipTests -pl core package)     # the jar of the sources at hand
CIO="$OUT/lib/commons-io-2.22.0"     # the version commons-io-tests.pom.xml names
CORE="$(ls "$ROOT"/core/target/uring4j-[0-9]*.jar)"
CP="$(ls "$OUT"/lib/*.jar | grep -v -- '-sources\.jar$' | tr '\n' ':')"
SELECT=("${@:---scan-class-path}")     # without a path: the class path's one directory, the tests'

# One side in a checkout-like directory of its own: the tests read src/, pom.xml and LICENSE.txt from the working
# directory and the test resources from a directory (a jar's resource URI is not hierarchical).
run_side() { # side, class path to add, JVM options...
    local side=$1 work="$OUT/$1" cp="$2"; shift 2
    mkdir -p "$work/target/test-classes" "$work/src/main/java" "$work/src/test/java"
    unzip -q "$CIO-tests.jar" -d "$work/target/test-classes"
    unzip -q "$CIO-tests.jar" -x '*.class' 'META-INF/*' -d "$work/src/test/resources"
    unzip -q "$CIO-sources.jar" -x 'META-INF/*' -d "$work/src/main/java"
    unzip -q "$CIO-test-sources.jar" -x 'META-INF/*' -d "$work/src/test/java"
    unzip -q -j "$CIO.jar" META-INF/LICENSE.txt META-INF/NOTICE.txt META-INF/maven/commons-io/commons-io/pom.xml \
        -d "$work"
    echo "commons-io-tests: $side side ..." >&2
    # A hung run gets a thread dump (SIGQUIT) in its log, then is killed; a hung test alone is left behind.
    (cd "$work" && timeout -s QUIT -k 60 1800 nice -n 19 "$JAVA" -Xmx512m -XX:+EnableDynamicAgentLoading "$@" \
        -cp "$work/target/test-classes:$CP$cp" org.junit.platform.console.ConsoleLauncher execute \
        --disable-banner --details=summary --reports-dir="$OUT/$side-reports" \
        --config=junit.jupiter.execution.timeout.default=5m \
        --config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD \
        "${SELECT[@]}") \
        >"$OUT/$side.log" 2>&1 || true
}

FLAG=(-Djava.nio.file.spi.DefaultFileSystemProvider=$PROVIDER --enable-native-access=ALL-UNNAMED)
used="$("$JAVA" "${FLAG[@]}" -cp "$CORE" "$ROOT/tools/external/CompareReports.java" provider)"
[[ "$used" == "$PROVIDER" ]] || { echo "commons-io-tests: the flag gave $used, not $PROVIDER" >&2; exit 1; }
run_side jdk ""
run_side flag "$CORE" "${FLAG[@]}" ${URING4J_OPTS:-}
"$JAVA" "$ROOT/tools/external/CompareReports.java" "$OUT/jdk-reports/TEST-junit-jupiter.xml" \
    "$OUT/flag-reports/TEST-junit-jupiter.xml"
