/*
 * uring4j_ref.c - the C reference for uring4j's Java benchmark.
 *
 * The same workloads as the Java side, written the way fio's t/io_uring
 * writes them: raw io_uring syscalls, no liburing. It needs only gcc and the
 * kernel uapi headers, so whatever gap we measure is Java vs C, not our code
 * vs liburing.
 *
 * Build:  gcc -O2 -std=c11 -Wall -Wextra -o uring4j_ref uring4j_ref.c
 *         (or `make` in this directory)
 *
 * Usage:  uring4j_ref [options] [FILE]      (FILE is needed only in read mode)
 *   -d depth (128)  -s submit batch (32)  -c complete batch (32)  -b bs (4096)
 *   -p IOPOLL (0)   -B fixed buffers (1)  -F registered files (1) -N nop mode (0)
 *   -O O_DIRECT (1) -r runtime s (2)      -R random offsets (1)   -X reg. ring fd (1)
 *   -t latency percentiles (0)            -L N  chains of N linked NOPs (0 = off)
 *   -A IOSQE_ASYNC on every SQE (0)       -D SINGLE_ISSUER|DEFER_TASKRUN (1)
 *   --json  print a JSON summary as the last line
 * Exit status: 0 ok, 1 runtime error, 2 bad options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/fs.h>
#include <linux/io_uring.h>

/* Distro uapi headers can lag the kernel; these values are fixed ABI. */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING (1U << 4)
#endif

#define NSEC 1000000000ULL
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- options (t/io_uring meanings and, except -p, its defaults) ---- */
static struct {
	unsigned depth, submit_batch, complete_batch, bs, runtime, link;
	int polled, fixed_bufs, reg_files, nop, odirect, random, reg_ring;
	int track_lat, async, defer, json;
	const char *file;
} o = {
	.depth = 128, .submit_batch = 32, .complete_batch = 32, .bs = 4096,
	.runtime = 2, .fixed_bufs = 1, .reg_files = 1, .odirect = 1,
	.random = 1, .reg_ring = 1, .defer = 1,
};

/* ---- the ring ---- */
struct ring {
	int fd, enter_fd;          /* enter_fd is the registered index with -X1 */
	unsigned enter_flags;      /* IORING_ENTER_REGISTERED_RING or 0 */
	unsigned setup_flags, sq_entries, cq_entries;
	unsigned *sq_tail, sq_mask, sqe_tail;   /* sqe_tail: our private copy */
	unsigned *cq_head, *cq_tail, cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* ---- run state ---- */
static struct ring R;
static int file_fd = -1;
static char *iobuf;              /* depth * bs bytes, one bs slot per I/O */
static uint64_t file_size, seq_off, rng = 0x9E3779B97F4A7C15ULL;
static unsigned *free_slots, nr_free;   /* stack of free user_data slots */
static uint64_t *slot_ts;        /* submit time per slot (-t1) */
static uint64_t calls, done, reaps;     /* enter calls, SQEs submitted, CQEs */
static int stopped;              /* past the deadline: counters frozen */
#define LAT_BUCKETS 3776         /* log-linear histogram, see lat_index() */
static uint64_t lat_hist[LAT_BUCKETS], lat_count;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

/* CPU time (user + system) of this thread: unlike wall time, it leaves out
 * time spent preempted by other processes on a busy machine. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "uring4j_ref: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int sys_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)syscall(__NR_io_uring_setup, entries, p);
}

static int sys_enter(unsigned to_submit, unsigned min_complete, unsigned flags)
{
	return (int)syscall(__NR_io_uring_enter, R.enter_fd, to_submit,
			    min_complete, flags | R.enter_flags, NULL, 0);
}

static int sys_register(unsigned op, const void *arg, unsigned nr)
{
	return (int)syscall(__NR_io_uring_register, R.fd, op, arg, nr);
}

/*
 * Create the ring with t/io_uring's flag set. On EINVAL drop one flag at a
 * time, newest kernel feature first, so an older kernel keeps every flag it
 * does support (DEFER_TASKRUN goes before SINGLE_ISSUER, which it requires).
 */
static void ring_setup(unsigned sq, unsigned cq)
{
	static const unsigned drop[] = {
		IORING_SETUP_NO_SQARRAY, IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_COOP_TASKRUN,
	};
	unsigned flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			 IORING_SETUP_NO_SQARRAY;
	struct io_uring_params p;
	unsigned i = 0;

	if (o.defer)
		flags |= IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	if (o.polled && !o.nop)
		flags |= IORING_SETUP_IOPOLL;
	for (;;) {
		memset(&p, 0, sizeof(p));
		p.flags = flags;
		p.cq_entries = cq;
		R.fd = sys_setup(sq, &p);
		if (R.fd >= 0)
			break;
		if (errno != EINVAL || i == sizeof(drop) / sizeof(drop[0]))
			die("io_uring_setup");
		flags &= ~drop[i++];
	}
	R.setup_flags = flags;
	R.sq_entries = p.sq_entries;
	R.cq_entries = p.cq_entries;

	/* One mapping holds both rings (FEAT_SINGLE_MMAP, every kernel that
	 * has NO_SQARRAY); size it for whichever part ends last. */
	size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq_ptr, *cq_ptr;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		sq_sz = cq_sz = sq_sz > cq_sz ? sq_sz : cq_sz;
	}
	sq_ptr = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, R.fd, IORING_OFF_SQ_RING);
	if (sq_ptr == MAP_FAILED)
		die("mmap sq ring");
	cq_ptr = sq_ptr;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq_ptr = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_POPULATE, R.fd, IORING_OFF_CQ_RING);
		if (cq_ptr == MAP_FAILED)
			die("mmap cq ring");
	}
	R.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      R.fd, IORING_OFF_SQES);
	if (R.sqes == MAP_FAILED)
		die("mmap sqes");
	R.sq_tail = (unsigned *)(sq_ptr + p.sq_off.tail);
	R.sq_mask = *(unsigned *)(sq_ptr + p.sq_off.ring_mask);
	R.sqe_tail = *R.sq_tail;
	R.cq_head = (unsigned *)(cq_ptr + p.cq_off.head);
	R.cq_tail = (unsigned *)(cq_ptr + p.cq_off.tail);
	R.cq_mask = *(unsigned *)(cq_ptr + p.cq_off.ring_mask);
	R.cqes = (struct io_uring_cqe *)(cq_ptr + p.cq_off.cqes);

	/* Without NO_SQARRAY, map SQ slot i to SQE i once, as liburing does. */
	if (!(flags & IORING_SETUP_NO_SQARRAY)) {
		unsigned *array = (unsigned *)(sq_ptr + p.sq_off.array);
		for (i = 0; i < p.sq_entries; i++)
			array[i] = i;
	}

	/* -X1: register the ring fd so enter skips the fdget/fdput. */
	R.enter_fd = R.fd;
	if (o.reg_ring) {
		struct io_uring_rsrc_update up = { .offset = -1U, .data = (__u64)(unsigned)R.fd };
		if (sys_register(IORING_REGISTER_RING_FDS, &up, 1) == 1) {
			R.enter_fd = (int)up.offset;
			R.enter_flags = IORING_ENTER_REGISTERED_RING;
		} else {
			o.reg_ring = 0;     /* reported in the header line */
		}
	}
}

/* Read mode: open the file, size it, register file and buffer if asked. */
static void file_setup(void)
{
	int flags = O_RDONLY | O_NOATIME | (o.odirect ? O_DIRECT : 0);
	struct stat st;

	file_fd = open(o.file, flags);
	if (file_fd < 0 && errno == EPERM)      /* O_NOATIME needs ownership */
		file_fd = open(o.file, flags & ~O_NOATIME);
	if (file_fd < 0)
		die(o.file);
	if (fstat(file_fd, &st) < 0)
		die("fstat");
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(file_fd, BLKGETSIZE64, &file_size) < 0)
			die("BLKGETSIZE64");
	} else {
		file_size = (uint64_t)st.st_size;
	}
	if (file_size < o.bs) {
		fprintf(stderr, "uring4j_ref: %s is smaller than one block\n", o.file);
		exit(1);
	}
	if (o.reg_files && sys_register(IORING_REGISTER_FILES, &file_fd, 1) < 0)
		die("IORING_REGISTER_FILES");
	if (o.fixed_bufs) {
		/* Registered buffers are charged to RLIMIT_MEMLOCK when unprivileged. */
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
		struct iovec iov = { iobuf, (size_t)o.bs * o.depth };
		setrlimit(RLIMIT_MEMLOCK, &rl);
		if (sys_register(IORING_REGISTER_BUFFERS, &iov, 1) < 0)
			die("IORING_REGISTER_BUFFERS");
	}
}

/* xorshift64*: a few cycles per offset, so the PRNG never shows up. */
static uint64_t next_offset(void)
{
	uint64_t nblocks = file_size / o.bs, off;

	if (!o.random) {
		off = seq_off;
		seq_off = seq_off + 2 * (uint64_t)o.bs > file_size ? 0 : seq_off + o.bs;
		return off;
	}
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 0x2545F4914F6CDD1DULL) % nblocks) * o.bs;
}

/* Write one SQE at our private tail; the tail is published in prep(). */
static void fill_sqe(unsigned slot, uint8_t sqe_flags)
{
	struct io_uring_sqe *sqe = &R.sqes[R.sqe_tail++ & R.sq_mask];

	/* Zero all 64 bytes: stale union fields from the last use of the
	 * slot must not leak into this request. */
	memset(sqe, 0, sizeof(*sqe));
	sqe->flags = sqe_flags | (o.async ? IOSQE_ASYNC : 0);
	sqe->user_data = slot;
	if (o.nop) {            /* also link mode */
		sqe->opcode = IORING_OP_NOP;
		sqe->fd = -1;
		return;
	}
	sqe->opcode = o.fixed_bufs ? IORING_OP_READ_FIXED : IORING_OP_READ;
	if (o.reg_files) {
		sqe->fd = 0;                    /* index into the file table */
		sqe->flags |= IOSQE_FIXED_FILE;
	} else {
		sqe->fd = file_fd;
	}
	sqe->off = next_offset();
	sqe->addr = (uint64_t)(uintptr_t)(iobuf + (size_t)slot * o.bs);
	sqe->len = o.bs;
	sqe->buf_index = 0;                     /* the one registered iovec */
}

/* Queue mode: prep n independent I/Os, each on a free buffer slot. */
static unsigned prep(unsigned n)
{
	uint64_t ts = o.track_lat ? now_ns() : 0;  /* one stamp per batch: all
						      go in the same enter */
	for (unsigned i = 0; i < n; i++) {
		unsigned slot = free_slots[--nr_free];
		if (o.track_lat)
			slot_ts[slot] = ts;
		fill_sqe(slot, 0);
	}
	__atomic_store_n(R.sq_tail, R.sqe_tail, __ATOMIC_RELEASE);
	return n;
}

/* Link mode: one chain of n NOPs, every one but the last IO_LINKed. */
static void prep_chain(unsigned n)
{
	uint64_t ts = o.track_lat ? now_ns() : 0;
	for (unsigned i = 0; i < n; i++) {
		if (o.track_lat)
			slot_ts[i] = ts;
		fill_sqe(i, i + 1 < n ? IOSQE_IO_LINK : 0);
	}
	__atomic_store_n(R.sq_tail, R.sqe_tail, __ATOMIC_RELEASE);
}

/*
 * Latency histogram: exact below 128 ns, then 64 sub-buckets per power of
 * two (<1.6% error) - fixed memory however many I/Os we run.
 */
static unsigned lat_index(uint64_t v)
{
	if (v < 128)
		return (unsigned)v;
	unsigned shift = 63 - (unsigned)__builtin_clzll(v) - 6;
	return shift * 64 + (unsigned)(v >> shift);
}

static uint64_t lat_value(unsigned idx)
{
	if (idx < 128)
		return idx;
	unsigned shift = idx / 64 - 1;
	return ((uint64_t)(idx % 64 + 64) << shift) + ((1ULL << shift) >> 1);
}

static uint64_t lat_percentile(double p)
{
	uint64_t want = (uint64_t)(p * (double)lat_count + 0.999999), sum = 0;
	for (unsigned i = 0; i < LAT_BUCKETS; i++) {
		sum += lat_hist[i];
		if (sum >= want && sum)
			return lat_value(i);
	}
	return 0;
}

/* Reap every visible CQE; any unexpected res is fatal, as in t/io_uring. */
static unsigned reap(void)
{
	unsigned head = *R.cq_head, reaped = 0;
	unsigned tail = __atomic_load_n(R.cq_tail, __ATOMIC_ACQUIRE);
	int want = o.nop ? 0 : (int)o.bs;      /* NOP res is 0 */
	uint64_t ts = (o.track_lat && head != tail) ? now_ns() : 0;

	for (; head != tail; head++, reaped++) {
		struct io_uring_cqe *cqe = &R.cqes[head & R.cq_mask];
		unsigned slot = (unsigned)cqe->user_data;
		if (cqe->res != want) {
			fprintf(stderr, "uring4j_ref: unexpected cqe res=%d (%s), "
				"expected %d\n", cqe->res,
				cqe->res < 0 ? strerror(-cqe->res) : "short",
				want);
			exit(1);
		}
		if (o.track_lat && !stopped) {
			lat_hist[lat_index(ts - slot_ts[slot])]++;
			lat_count++;
		}
		if (!o.link)
			free_slots[nr_free++] = slot;
	}
	__atomic_store_n(R.cq_head, head, __ATOMIC_RELEASE);
	return reaped;
}

/* ---- per-second reporting and the deadline ---- */
static uint64_t t_start, t_stop, deadline, next_report, last_t;
static uint64_t last_calls, last_done, last_reaps, max_iops, ops_at_check;
static uint64_t stop_calls, stop_done, stop_reaps, cpu_start, cpu_used;

static void fmt_iops(char *buf, size_t n, double iops)
{
	if (iops > 1000000)
		snprintf(buf, n, "%.2fM", iops / 1000000);
	else if (iops > 100000)
		snprintf(buf, n, "%.2fK", iops / 1000);
	else
		snprintf(buf, n, "%" PRIu64, (uint64_t)iops);
}

/* Called every 64 loop iterations or 2048 completions: a vDSO clock read
 * costs ~20 ns, invisible at that rate even for QD1. */
static void check_clock(void)
{
	uint64_t now = now_ns();

	ops_at_check = reaps;
	if (now >= next_report) {
		uint64_t dc = calls - last_calls;
		double iops = (double)(reaps - last_reaps) * NSEC / (double)(now - last_t);
		char ibuf[32];

		fmt_iops(ibuf, sizeof(ibuf), iops);
		printf("IOPS=%s, ", ibuf);
		if (!o.nop)
			printf("BW=%" PRIu64 "MiB/s, ", (uint64_t)(iops * o.bs / 1048576));
		if (dc)
			printf("IOS/call=%" PRIu64 "/%" PRIu64 "\n",
			       (done - last_done) / dc, (reaps - last_reaps) / dc);
		else
			printf("IOS/call=-1/-1\n");
		fflush(stdout);
		if ((uint64_t)iops > max_iops)
			max_iops = (uint64_t)iops;
		last_t = now;
		last_calls = calls;
		last_done = done;
		last_reaps = reaps;
		next_report += NSEC;    /* fixed schedule: the last report
					   lands on the deadline */
	}
	if (now >= deadline) {
		stopped = 1;
		t_stop = now;
		cpu_used = thread_cpu_ns() - cpu_start;
		stop_calls = calls;
		stop_done = done;
		stop_reaps = reaps;
	}
}

/*
 * Queue mode (nop and read): t/io_uring's submitter loop. Note that, as in
 * t/io_uring, inflight already includes the batch being submitted when
 * to_wait is computed; in steady state (-d128 -s32 -c32) every enter submits
 * 32 and waits for 32. GETEVENTS is always set while anything is in flight:
 * with DEFER_TASKRUN, async completions only post during such an enter.
 * After the deadline nothing new is prepped and the in-flight I/O drains
 * (still checked, but no longer counted).
 */
static void run_queue(void)
{
	unsigned depth = o.depth, inflight = 0, prepped = 0, iter = 0;

	while (!stopped || inflight) {
		if (!prepped && inflight < depth && !stopped) {
			prepped = prep(MIN(depth - inflight, o.submit_batch));
			inflight += prepped;
		}
		unsigned to_submit = prepped;
		unsigned to_wait = (to_submit && inflight + to_submit <= depth) ? 0 :
				   MIN(inflight + to_submit, o.complete_batch);
		int ret = sys_enter(to_submit, to_wait,
				    inflight ? IORING_ENTER_GETEVENTS : 0);
		calls++;
		unsigned r = reap();
		inflight -= r;
		reaps += r;
		if (ret < 0) {
			/* Nothing was submitted; the prepped SQEs stay queued
			 * and go out with the next enter. */
			if (errno != EAGAIN && errno != EINTR)
				die("io_uring_enter");
		} else {
			/* A short submit leaves the rest prepped for the
			 * next enter (t/io_uring's "submit_more"). */
			done += (unsigned)ret;
			prepped -= (unsigned)ret;
		}
		if (!stopped && ((++iter & 63) == 0 || reaps - ops_at_check >= 2048))
			check_clock();
	}
}

/*
 * Link mode: submit one chain of N linked NOPs and wait for all N CQEs in
 * the same enter; the next chain goes out only once the whole previous one
 * is reaped. A chain never spans two enters, hence sq_entries >= N.
 */
static void run_link(void)
{
	unsigned n = o.link;

	while (!stopped) {
		prep_chain(n);
		int ret;
		do {
			ret = sys_enter(n, n, IORING_ENTER_GETEVENTS);
			calls++;
		} while (ret < 0 && (errno == EINTR || errno == EAGAIN));
		if (ret < 0)
			die("io_uring_enter");
		if ((unsigned)ret != n) {
			fprintf(stderr, "uring4j_ref: short submit %d of %u\n", ret, n);
			exit(1);
		}
		done += n;
		unsigned got = reap();
		while (got < n) {
			ret = sys_enter(0, n - got, IORING_ENTER_GETEVENTS);
			calls++;
			if (ret < 0 && errno != EINTR && errno != EAGAIN)
				die("io_uring_enter");
			got += reap();
		}
		reaps += n;
		check_clock();      /* one chain is >= N ops: cheap enough */
	}
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [options] [FILE]\n"
		"  -d depth (128)   -s submit batch (32)   -c complete batch (32)\n"
		"  -b block size (4096)   -p 0|1 IOPOLL (0)   -B 0|1 fixed buffers (1)\n"
		"  -F 0|1 registered file (1)   -N 0|1 nop mode (0)   -O 0|1 O_DIRECT (1)\n"
		"  -r runtime seconds (2)   -R 0|1 random offsets (1)   -X 0|1 register ring fd (1)\n"
		"  -t 0|1 latency percentiles (0)   -L N linked-NOP chains of N (0 = off)\n"
		"  -A 0|1 IOSQE_ASYNC (0)   -D 0|1 SINGLE_ISSUER|DEFER_TASKRUN (1)\n"
		"  --json  JSON summary as the last line\n"
		"FILE is required in read mode (neither -N1 nor -L).\n", prog);
	exit(2);
}

/* Strict integer parsing: anything but a whole number in range is a usage error. */
static unsigned num(const char *s, unsigned lo, unsigned hi, const char *prog)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < (long)lo || v > (long)hi)
		usage(prog);
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:s:c:b:p:B:F:N:O:r:R:X:t:L:A:D:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.depth = num(optarg, 1, 32768, argv[0]); break;
		case 's': o.submit_batch = num(optarg, 1, 32768, argv[0]); break;
		case 'c': o.complete_batch = num(optarg, 1, 32768, argv[0]); break;
		case 'b': o.bs = num(optarg, 1, 1U << 30, argv[0]); break;
		case 'p': o.polled = (int)num(optarg, 0, 1, argv[0]); break;
		case 'B': o.fixed_bufs = (int)num(optarg, 0, 1, argv[0]); break;
		case 'F': o.reg_files = (int)num(optarg, 0, 1, argv[0]); break;
		case 'N': o.nop = (int)num(optarg, 0, 1, argv[0]); break;
		case 'O': o.odirect = (int)num(optarg, 0, 1, argv[0]); break;
		case 'r': o.runtime = num(optarg, 1, 86400, argv[0]); break;
		case 'R': o.random = (int)num(optarg, 0, 1, argv[0]); break;
		case 'X': o.reg_ring = (int)num(optarg, 0, 1, argv[0]); break;
		case 't': o.track_lat = (int)num(optarg, 0, 1, argv[0]); break;
		case 'L': o.link = num(optarg, 0, 32768, argv[0]); break;
		case 'A': o.async = (int)num(optarg, 0, 1, argv[0]); break;
		case 'D': o.defer = (int)num(optarg, 0, 1, argv[0]); break;
		case 'j': o.json = 1; break;
		default: usage(argv[0]);
		}
	}
	if (optind < argc)
		o.file = argv[optind++];
	if (optind < argc)
		usage(argv[0]);
	if (o.link) {           /* depth and batches are the chain length */
		o.nop = 1;
		o.depth = o.submit_batch = o.complete_batch = o.link;
	}
	if (!o.nop && !o.file)
		usage(argv[0]);
	/* As in t/io_uring, batches never exceed the depth. */
	o.submit_batch = MIN(o.submit_batch, o.depth);
	o.complete_batch = MIN(o.complete_batch, o.depth);
	if (o.nop)              /* no file and no buffers in nop mode */
		o.polled = o.fixed_bufs = o.reg_files = 0;

	/* CQ = depth: never more than depth CQEs outstanding, so no overflow. */
	ring_setup(o.depth, o.depth);

	free_slots = malloc(o.depth * sizeof(*free_slots));
	slot_ts = calloc(o.depth, sizeof(*slot_ts));
	if (!free_slots || !slot_ts)
		die("malloc");
	for (unsigned i = 0; i < o.depth; i++)
		free_slots[nr_free++] = o.depth - 1 - i;
	if (!o.nop) {
		if (posix_memalign((void **)&iobuf, 4096, (size_t)o.bs * o.depth))
			die("posix_memalign");
		memset(iobuf, 0, (size_t)o.bs * o.depth);   /* fault pages in */
		file_setup();
	}

	const char *mode = o.link ? "link" : o.nop ? "nop" : "read";
	printf("mode=%s, file=%s, QD=%u, submit_batch=%u, complete_batch=%u, "
	       "bs=%u, polled=%d, fixedbufs=%d, register_files=%d, buffered=%d, "
	       "random=%d, async=%d, link=%u\n", mode, o.file ? o.file : "-",
	       o.depth, o.submit_batch, o.complete_batch, o.bs, o.polled,
	       o.fixed_bufs, o.reg_files, !o.odirect, o.random, o.async, o.link);
	printf("Engine=io_uring, sq_ring=%u, cq_ring=%u, setup_flags=0x%x "
	       "(single_issuer=%d, defer_taskrun=%d, no_sqarray=%d), "
	       "registered_ring=%d\n", R.sq_entries, R.cq_entries, R.setup_flags,
	       !!(R.setup_flags & IORING_SETUP_SINGLE_ISSUER),
	       !!(R.setup_flags & IORING_SETUP_DEFER_TASKRUN),
	       !!(R.setup_flags & IORING_SETUP_NO_SQARRAY), o.reg_ring);
	fflush(stdout);

	cpu_start = thread_cpu_ns();
	t_start = last_t = now_ns();
	next_report = t_start + NSEC;
	deadline = t_start + (uint64_t)o.runtime * NSEC;
	if (o.link)
		run_link();
	else
		run_queue();

	uint64_t elapsed = t_stop - t_start, ops = stop_reaps;
	double secs = (double)elapsed / NSEC;
	double iops_avg = ops ? (double)ops / secs : 0;
	double ns_op = ops ? (double)elapsed / (double)ops : 0;
	double ipc_s = stop_calls ? (double)stop_done / (double)stop_calls : 0;
	double ipc_r = stop_calls ? (double)stop_reaps / (double)stop_calls : 0;
	if (!max_iops)                  /* no full one-second interval */
		max_iops = (uint64_t)iops_avg;

	printf("Maximum IOPS=%" PRIu64 "\n", max_iops);
	printf("ns/op=%.2f\n", ns_op);
	if (o.track_lat)
		printf("latency: p50=%" PRIu64 " ns, p99=%" PRIu64 " ns, "
		       "p99.9=%" PRIu64 " ns (%" PRIu64 " samples)\n",
		       lat_percentile(0.50), lat_percentile(0.99),
		       lat_percentile(0.999), lat_count);
	if (o.json) {
		printf("{\"impl\":\"c\",\"mode\":\"%s\",\"depth\":%u,"
		       "\"submit_batch\":%u,\"complete_batch\":%u,\"link\":%u,"
		       "\"async\":%d,\"ops\":%" PRIu64 ",\"seconds\":%.6f,"
		       "\"iops_max\":%" PRIu64 ",\"iops_avg\":%.1f,"
		       "\"ns_per_op\":%.3f,\"ios_per_call_submit\":%.3f,"
		       "\"ios_per_call_reap\":%.3f,\"syscalls\":%" PRIu64
		       ",\"cpu_ns_per_op\":%.3f",
		       mode, o.depth, o.submit_batch, o.complete_batch, o.link,
		       o.async, ops, secs, max_iops, iops_avg, ns_op, ipc_s,
		       ipc_r, stop_calls, ops ? (double)cpu_used / (double)ops : 0);
		if (o.track_lat)
			printf(",\"p50_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
			       ",\"p999_ns\":%" PRIu64, lat_percentile(0.50),
			       lat_percentile(0.99), lat_percentile(0.999));
		printf("}\n");
	}
	return 0;
}
