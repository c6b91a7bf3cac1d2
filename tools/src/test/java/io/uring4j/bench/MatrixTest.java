package io.uring4j.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class MatrixTest {
    @Test
    void theMatrixHasEveryCellOnceWithTheIssuesTargets() {
        List<Matrix.Cell> cells = Matrix.cells(true);
        // FileChannel: 2 thread kinds x 3 counts x 2 caching x 2 sizes x 3 modes; async: 3 x 2 x 2 x 2 modes;
        // uring4j's futures at 64 in flight.
        assertThat(cells).hasSize(72 + 24 + 1);
        assertThat(cells.stream().map(Matrix.Cell::name).distinct()).hasSize(cells.size());
        assertThat(cells).filteredOn(c -> c.name().equals("FC VT x64 O_DIRECT 4K read")).singleElement()
                .satisfies(c -> {
                    assertThat(c.target()).isEqualTo(2.0);
                    assertThat(c.ceilingTarget()).isEqualTo(0.75);
                });
        assertThat(cells).filteredOn(c -> c.ceilingTarget() > 0).extracting(Matrix.Cell::name)
                .containsExactly("FC VT x64 O_DIRECT 4K read", "future 2x32 O_DIRECT 4K read");
        assertThat(cells).filteredOn(c -> c.name().startsWith("future")).singleElement()
                .satisfies(c -> assertThat(c.ceilingTarget()).isEqualTo(0.9));
        assertThat(Matrix.cells(false)).allSatisfy(c -> assertThat(c.target()).isEqualTo(0.97));
        assertThat(BulkOps.rows()).hasSize(7 * 2 * 2);
    }

    @Test
    void matrixOptionsNeedCompareJdk() {
        assertThat(BenchRun.refused("--matrix", "-r1")).contains("--matrix, --cells and --fork need --compare-jdk");
        assertThat(BenchRun.refused("--compare-jdk", "--fork", "-r1")).contains("--fork needs --matrix");
    }

    /** {@code --fork} hands each side to a child through the bench's options: they make the very same side. */
    @Test
    void everyCellsSidesAreTheBenchOptionsThatMakeThem() {
        for (Matrix.Cell cell : Matrix.cells(true)) {
            for (BenchOptions side : List.of(cell.a(), cell.b())) {
                BenchOptions parsed = new BenchOptions();
                new picocli.CommandLine(parsed).parseArgs(Matrix.args(side).toArray(String[]::new));
                assertThat(parsed).as(cell.name()).usingRecursiveComparison()
                        .comparingOnlyFields("api", "depth", "direct", "blockSize", "threads", "write", "force",
                                "platform")
                        .isEqualTo(side);
            }
        }
    }

    /** A bulk row's sides go to a child as {@code --bulk}: the row by its name, uring4j's paths or the JDK's. */
    @Test
    void everyBulkRowsSidesAreTheBenchOptionsThatMakeThem() {
        for (BulkOps.Row row : BulkOps.rows()) {
            for (boolean ours : new boolean[]{true, false}) {
                BenchOptions parsed = new BenchOptions();
                new picocli.CommandLine(parsed).parseArgs(Matrix.bulkArgs(row, ours).toArray(String[]::new));
                assertThat(parsed.validate()).as(row.name()).isNull();
                assertThat(parsed.bulk).isEqualTo(row.name());
                assertThat(parsed.api).isEqualTo(ours ? BenchOptions.Api.filechannel
                        : BenchOptions.Api.jdk_filechannel);
            }
        }
    }

    @Test
    void bulkTakesARowsNameAndAFileChannelApi() {
        String refusal = "--bulk takes a bulk row's name as --matrix prints it";
        for (String[] args : List.of(new String[]{"--bulk", "bulk VT x3 readAllBytes", "--api", "filechannel"},
                new String[]{"--bulk", "bulk VT x1 readAllBytes"},
                new String[]{"--bulk", "bulk VT x1 readAllBytes", "--api", "jdk-filechannel", "--platform"})) {
            assertThat(BenchRun.refused(args)).contains(refusal);
        }
        assertThat(BenchRun.refused("--compare-jdk", "--bulk", "bulk VT x1 readAllBytes"))
                .contains("--bulk runs one side of a row: leave out --compare-jdk");
    }

    /** A cell and a bulk row of each kind with each side in a JVM of its own: measured there, reported here. */
    @Test
    void forkedCellsAndRowsReportTheirChildrensRatios() {
        BenchRun run = BenchRun.of("--compare-jdk", "--matrix", "--fork", "--cells",
                "^(FC PT x1 cached 4K write|AFC x1 cached 4K read|future .*|bulk VT x1 inputStream 8K)$",
                "--rounds", "1", "-r1", "--warmup", "0", "--size", "4M", "--json");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("3 cells and 1 bulk rows").contains("in a JVM of its own");
        assertThat(measuredRows(json(run))).isEqualTo(4);
    }

    /** A few cells and every bulk row of one virtual thread: each side measured, each ratio reported. */
    @Test
    void selectedCellsAndBulkRowsReportTheirRatios() {
        BenchRun run = BenchRun.of("--compare-jdk", "--matrix", "--cells",
                "^(FC PT x1 cached 4K (read|write\\+force)|AFC x8 O_DIRECT 4K read|future .*|bulk VT x1 .*)$",
                "--rounds", "1", "-r1", "--warmup", "0", "--size", "4M", "--json");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("4 cells and 7 bulk rows");
        String json = json(run);
        assertThat(measuredRows(json)).isEqualTo(11);
        if (CompareC.findCompiler() != null) {
            assertThat(json).containsPattern("\"cell\":\"FC PT x1 cached 4K read\"[^}]*\"c_ceiling\":[1-9]");
        }
    }

    private static String json(BenchRun run) {
        return run.out().lines().filter(l -> l.startsWith("{\"syscall_ns\"")).findFirst().orElseThrow();
    }

    /** The rows of the matrix's JSON summary, each checked to have measured both sides. */
    private static int measuredRows(String json) {
        Matcher m = Pattern.compile("\"cell\":\"([^\"]+)\",\"a_ops\":(\\d+),\"b_ops\":(\\d+)").matcher(json);
        int rows = 0;
        while (m.find()) {
            rows++;
            assertThat(Long.parseLong(m.group(2))).as(m.group(1)).isPositive();
            assertThat(Long.parseLong(m.group(3))).as(m.group(1)).isPositive();
        }
        return rows;
    }
}
