package io.uring4j.bench;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.NIOFSDirectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A search engine's index: Lucene on {@link NIOFSDirectory}, whose reads are FileChannel preads (not a memory
 * map, which uring4j hands to the JDK) and whose writes are {@code Files.newOutputStream} streams made durable by
 * FileChannel {@code force} on every file and on the directory — run as a program of its own (the JVM flag that
 * installs the provider acts at start-up). Phases: documents indexed with a commit every
 * {@value #COMMIT_EVERY}, term and boolean queries, updates by id with a commit every {@value #UPDATE_COMMIT_EVERY}
 * (many small segments, merged as they come), a merge into one segment, and a re-open that reads every stored
 * document back. Merges run on the indexing thread and flushes come by document count, so the index — and with it
 * every result line on standard output — does not depend on timing or on the file system provider; then one JSON
 * line with the FileChannel class the application got and the timings.
 *
 * <p>Arguments: directory, document count.
 */
public final class LuceneWorkload {
    static final int COMMIT_EVERY = 10_000;
    static final int UPDATE_COMMIT_EVERY = 1_000;
    private static final int WORDS = 5_000;
    private static final int QUERIES = 5_000;

    private LuceneWorkload() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int docs = Integer.parseInt(args[1]);
        Path index = dir.resolve("index");
        String channel = CompareFlag.channelClass(dir);
        SplittableRandom random = new SplittableRandom(42);
        long t0 = System.nanoTime();
        long t1;
        long t2;
        long t3;
        long t4;
        try (Directory directory = new NIOFSDirectory(index);
             IndexWriter writer = new IndexWriter(directory, config())) {
            for (int i = 0; i < docs; i++) {
                writer.addDocument(document(i, random));
                if (i % COMMIT_EVERY == COMMIT_EVERY - 1) {
                    writer.commit();
                }
            }
            writer.commit();
            t1 = System.nanoTime();
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                System.out.println("queries: " + search(new IndexSearcher(reader), random, QUERIES));
            }
            t2 = System.nanoTime();
            for (int i = 0; i < docs / 4; i++) {
                int id = random.nextInt(docs);
                writer.updateDocument(new Term("id", Integer.toString(id)), document(id, random));
                if (i % UPDATE_COMMIT_EVERY == UPDATE_COMMIT_EVERY - 1) {
                    writer.commit();
                }
            }
            writer.commit();
            t3 = System.nanoTime();
            writer.forceMerge(1);
            writer.commit();
            t4 = System.nanoTime();
        }
        try (Directory directory = new NIOFSDirectory(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            StoredFields stored = reader.storedFields();
            long checksum = 0;
            long length = 0;
            for (int d = 0; d < reader.maxDoc(); d++) {
                Document doc = stored.document(d);
                checksum += doc.get("id").hashCode() * 31L + doc.get("body").hashCode();
                length += doc.get("body").length();
            }
            System.out.println("after re-open: " + reader.numDocs() + " documents in " + reader.leaves().size()
                    + " segment(s), " + length + " chars, checksum " + checksum + ", after the queries: "
                    + search(new IndexSearcher(reader), new SplittableRandom(7), QUERIES / 5));
        }
        long end = System.nanoTime();
        System.out.printf(Locale.ROOT, "{\"channel\":\"%s\",\"index_per_s\":%.0f,\"query_per_s\":%.0f,"
                        + "\"update_per_s\":%.0f,\"merge_ms\":%.1f,\"reopen_ms\":%.1f,\"total_ms\":%.1f}%n", channel,
                docs / seconds(t0, t1), QUERIES / seconds(t1, t2), docs / 4 / seconds(t2, t3), (t4 - t3) / 1e6,
                (end - t4) / 1e6, (end - t0) / 1e6);
    }

    /** Flushes by document count and merges on the calling thread: the same segments on every run. */
    private static IndexWriterConfig config() {
        return new IndexWriterConfig(new StandardAnalyzer())
                .setMaxBufferedDocs(5_000)
                .setRAMBufferSizeMB(IndexWriterConfig.DISABLE_AUTO_FLUSH)
                .setMergeScheduler(new SerialMergeScheduler())
                .setUseCompoundFile(false);
    }

    /** An id (a term, a sort key and a stored value) and a body of 8 to 40 words from a skewed vocabulary. */
    private static Document document(int id, SplittableRandom random) {
        StringBuilder body = new StringBuilder();
        int words = 8 + random.nextInt(33);
        for (int w = 0; w < words; w++) {
            body.append(w == 0 ? "" : " ").append(word(random));
        }
        Document doc = new Document();
        doc.add(new StringField("id", Integer.toString(id), Field.Store.YES));
        doc.add(new NumericDocValuesField("key", id));
        doc.add(new TextField("body", body.toString(), Field.Store.YES));
        return doc;
    }

    /** A word whose rank is roughly log-uniform: a few common words, many rare ones. */
    private static String word(SplittableRandom random) {
        return name((int) Math.pow(WORDS, random.nextDouble()));
    }

    /** Any word of the vocabulary alike, as users search: mostly rare ones, a few hundred hits each. */
    private static String queryWord(SplittableRandom random) {
        return name(1 + random.nextInt(WORDS));
    }

    private static String name(int rank) {
        return "w" + Integer.toString(rank, 36);
    }

    /**
     * Term and two-term boolean queries: the hit counts and the ids of the top ten by key (a sort on doc values,
     * not on doc order or score, so the same on every run), summed.
     */
    private static String search(IndexSearcher searcher, SplittableRandom random, int queries) throws IOException {
        long hits = 0;
        long top = 0;
        Sort byKey = new Sort(new SortField("key", SortField.Type.LONG));
        for (int q = 0; q < queries; q++) {
            Query query = new TermQuery(new Term("body", queryWord(random)));
            if (q % 4 == 0) {
                query = new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST)
                        .add(new TermQuery(new Term("body", queryWord(random))), BooleanClause.Occur.SHOULD).build();
            }
            hits += searcher.count(query);
            for (ScoreDoc d : searcher.search(query, 10, byKey).scoreDocs) {
                top += (Long) ((FieldDoc) d).fields[0];
            }
        }
        return queries + " queries, " + hits + " hits, top ids summing to " + top;
    }

    private static double seconds(long from, long to) {
        return (to - from) / 1e9;
    }
}
