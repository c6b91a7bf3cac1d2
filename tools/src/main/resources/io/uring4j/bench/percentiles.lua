-- wrk script for every `./uring4j bench http` run: prints the latency percentiles wrk's summary lacks
-- (p99.9, in whole microseconds) on one line the bench reads.
done = function(summary, latency, requests)
  io.write(string.format("uring4j-latency p50=%d p99=%d p99.9=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
