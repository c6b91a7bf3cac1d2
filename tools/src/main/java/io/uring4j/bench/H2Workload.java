package io.uring4j.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.SplittableRandom;

/**
 * A JDBC workload on the H2 database, run as a program of its own (the JVM flag that installs the provider acts at
 * start-up): bulk insert, point queries, updates, a shutdown, a restart and a re-read. Standard output gets the
 * results, which must not depend on the file system provider, then one JSON line with the FileChannel class the
 * application got and the timings.
 *
 * <p>Arguments: database directory, row count.
 */
public final class H2Workload {
    private H2Workload() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int rows = Integer.parseInt(args[1]);
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        String channel = CompareFlag.channelClass(dir);
        double inserts;
        double queries;
        double updates;
        SplittableRandom random = new SplittableRandom(42);
        long t0 = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(64), amount BIGINT)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO item VALUES (?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "item-" + Long.toHexString(random.nextLong()));
                    insert.setLong(3, random.nextInt(1_000_000));
                    insert.addBatch();
                    if (i % 1000 == 999) {
                        insert.executeBatch();
                        c.commit();
                    }
                }
                insert.executeBatch();
                c.commit();
            }
            long t1 = System.nanoTime();
            long sum = 0;
            try (PreparedStatement query = c.prepareStatement("SELECT amount FROM item WHERE id = ?")) {
                for (int i = 0; i < rows; i++) {
                    query.setInt(1, random.nextInt(rows));
                    try (ResultSet r = query.executeQuery()) {
                        r.next();
                        sum += r.getLong(1);
                    }
                }
            }
            System.out.println("point queries: sum " + sum);
            long t2 = System.nanoTime();
            try (PreparedStatement update = c.prepareStatement("UPDATE item SET amount = amount * 2 + 1 WHERE id = ?")) {
                for (int i = 0; i < rows / 2; i++) {
                    update.setInt(1, random.nextInt(rows));
                    update.executeUpdate();
                    if (i % 100 == 99) {
                        c.commit();
                    }
                }
                c.commit();
            }
            long t3 = System.nanoTime();
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
            inserts = rate(rows, t0, t1);
            queries = rate(rows, t1, t2);
            updates = rate(rows / 2, t2, t3);
        }
        long t4 = System.nanoTime();
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(amount), SUM(LENGTH(name)), MAX(name) FROM item")) {
            r.next();
            System.out.println("after restart: rows " + r.getLong(1) + ", amounts " + r.getLong(2) + ", name bytes "
                    + r.getLong(3) + ", max name " + r.getString(4));
        }
        long end = System.nanoTime();
        System.out.printf(java.util.Locale.ROOT, "{\"channel\":\"%s\",\"insert_per_s\":%.0f,\"query_per_s\":%.0f,"
                        + "\"update_per_s\":%.0f,\"restart_ms\":%.1f,\"total_ms\":%.1f}%n", channel, inserts, queries,
                updates, (end - t4) / 1e6, (end - t0) / 1e6);
    }

    private static double rate(int n, long from, long to) {
        return n / ((to - from) / 1e9);
    }
}
