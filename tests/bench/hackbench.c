// SPDX-License-Identifier: MIT
/*
 * hackbench: groups of sender and receiver threads passing messages.
 *
 * As in the scheduler benchmark the SLUB threads measured (hackbench
 * thread mode), each group has S senders and S receivers; every sender
 * sends L messages to every receiver of its group.  Here the message is a
 * malloc()ed buffer whose address goes through the receiver's pipe (or, with
 * -Q, an in-memory queue); the receiver checks and frees it.  So every
 * message is one allocation on the sending thread and one remote free on
 * the receiving thread, interleaved with context switches.
 *
 * Prints "Time: seconds" like hackbench, and ns of wall time per message.
 */
#include "bench.h"

#include <poll.h>

#define MSG_MAGIC 0x4861636B42656E63ULL

struct msg {
	uint64_t magic;
	uint32_t sender, seq;
	/* payload up to msg_size */
};

struct receiver {
	int fd[2];                 /* pipe mode */
	pthread_mutex_t lock;      /* queue mode */
	pthread_cond_t cond;
	struct msg **ring;
	long head, count, cap;
	long expect;
	uint64_t bad;
	pthread_t thread;
} __attribute__((aligned(64)));

struct sender {
	int group, id;
	pthread_t thread;
};

static int nr_groups = 4, nr_per_side = 5;
static long nr_loops = 2000;
static size_t msg_size = 100;
static int use_queue;
static struct receiver *receivers;
static struct sender *senders;
static pthread_barrier_t start;

static void send_ptr(struct receiver *r, struct msg *m)
{
	if (!use_queue) {
		ssize_t n;

		do
			n = write(r->fd[1], &m, sizeof(m));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(m)) {
			perror("hackbench: write");
			exit(2);
		}
		return;
	}
	pthread_mutex_lock(&r->lock);
	while (r->count == r->cap)
		pthread_cond_wait(&r->cond, &r->lock);
	r->ring[(r->head + r->count) % r->cap] = m;
	r->count++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Receive up to `max` pointers; returns how many. */
static long recv_ptrs(struct receiver *r, struct msg **out, long max, size_t *carry)
{
	long n = 0;

	if (!use_queue) {
		char *buf = (char *)out;
		ssize_t got;

		do
			got = read(r->fd[0], buf + *carry, max * sizeof(*out) - *carry);
		while (got < 0 && errno == EINTR);
		if (got <= 0) {
			perror("hackbench: read");
			exit(2);
		}
		got += *carry;
		n = got / sizeof(*out);
		*carry = got % sizeof(*out);
		return n;
	}
	pthread_mutex_lock(&r->lock);
	while (r->count == 0)
		pthread_cond_wait(&r->cond, &r->lock);
	while (r->count && n < max) {
		out[n++] = r->ring[r->head];
		r->head = (r->head + 1) % r->cap;
		r->count--;
	}
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct receiver *group = &receivers[s->group * nr_per_side];

	pthread_barrier_wait(&start);
	for (long l = 0; l < nr_loops; l++) {
		for (int j = 0; j < nr_per_side; j++) {
			struct msg *m = bench_xmalloc(msg_size);

			m->magic = MSG_MAGIC;
			m->sender = s->id;
			m->seq = (uint32_t)l;
			memset(m + 1, (int)l, msg_size - sizeof(*m));
			send_ptr(&group[j], m);
		}
	}
	return NULL;
}

static void *receiver_main(void *arg)
{
	struct receiver *r = arg;
	struct msg *got[64 + 1];
	size_t carry = 0;
	long left = r->expect;

	pthread_barrier_wait(&start);
	while (left > 0) {
		long n = recv_ptrs(r, got, 64, &carry);

		for (long i = 0; i < n; i++) {
			r->bad += got[i]->magic != MSG_MAGIC;
			free(got[i]);
		}
		/* a partial pointer stays at the front for the next read */
		if (carry)
			memmove(got, (char *)got + n * sizeof(*got), carry);
		left -= n;
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hackbench [-g GROUPS] [-f SENDERS] [-l LOOPS] [-s SIZE] [-Q] [-M]\n"
		"  -g  groups (4)     -f  senders = receivers per group (5)\n"
		"  -l  messages from each sender to each receiver (2000)\n"
		"  -s  message size (100)  -Q  in-memory queues instead of pipes\n"
		"  -M  also print '@name value' lines\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nr_recv, nr_send, opt;
	uint64_t t0, t1, bad = 0;
	double msgs, ns_msg;

	while ((opt = getopt(argc, argv, "g:f:l:s:QMh")) != -1) {
		switch (opt) {
		case 'g': nr_groups = bench_arg(optarg, "-g"); break;
		case 'f': nr_per_side = bench_arg(optarg, "-f"); break;
		case 'l': nr_loops = bench_arg(optarg, "-l"); break;
		case 's': msg_size = bench_arg(optarg, "-s"); break;
		case 'Q': use_queue = 1; break;
		case 'M': bench_machine = 1; break;
		default: usage();
		}
	}
	if (nr_groups < 1 || nr_per_side < 1 || msg_size < sizeof(struct msg))
		usage();

	nr_recv = nr_send = nr_groups * nr_per_side;
	printf("hackbench: %d groups x (%d senders + %d receivers), %ld loops, %zu-byte messages, %s\n",
	       nr_groups, nr_per_side, nr_per_side, nr_loops, msg_size,
	       use_queue ? "queues" : "pipes");
	receivers = bench_xmalloc(nr_recv * sizeof(*receivers));
	senders = bench_xmalloc(nr_send * sizeof(*senders));
	pthread_barrier_init(&start, NULL, nr_recv + nr_send + 1);
	for (int i = 0; i < nr_recv; i++) {
		struct receiver *r = &receivers[i];

		memset(r, 0, sizeof(*r));
		r->expect = (long)nr_per_side * nr_loops;
		if (use_queue) {
			pthread_mutex_init(&r->lock, NULL);
			pthread_cond_init(&r->cond, NULL);
			r->cap = 256;
			r->ring = bench_xmalloc(r->cap * sizeof(*r->ring));
		} else if (pipe(r->fd)) {
			perror("hackbench: pipe");
			return 2;
		}
		bench_thread_create(&r->thread, receiver_main, r);
	}
	for (int i = 0; i < nr_send; i++) {
		senders[i].group = i / nr_per_side;
		senders[i].id = i;
		bench_thread_create(&senders[i].thread, sender_main, &senders[i]);
	}
	t0 = bench_ns();
	pthread_barrier_wait(&start);
	for (int i = 0; i < nr_send; i++)
		pthread_join(senders[i].thread, NULL);
	for (int i = 0; i < nr_recv; i++) {
		pthread_join(receivers[i].thread, NULL);
		bad += receivers[i].bad;
	}
	t1 = bench_ns();
	pthread_barrier_destroy(&start);
	if (bad) {
		fprintf(stderr, "hackbench: %llu corrupt messages\n", (unsigned long long)bad);
		return 1;
	}

	msgs = (double)nr_groups * nr_per_side * nr_per_side * nr_loops;
	ns_msg = (double)(t1 - t0) / msgs;
	printf("%-12s %12s %10s %10s\n", "benchmark", "messages", "Time (s)", "ns/msg");
	printf("%-12s %12.0f %10.3f %10.1f\n", "hackbench", msgs, (t1 - t0) / 1e9, ns_msg);
	printf("Time: %.3f\n", (t1 - t0) / 1e9);
	bench_metric(ns_msg, "hackbench.ns");

	for (int i = 0; i < nr_recv; i++) {
		if (use_queue) {
			free(receivers[i].ring);
		} else {
			close(receivers[i].fd[0]);
			close(receivers[i].fd[1]);
		}
	}
	free(receivers);
	free(senders);
	bench_report_end(t1 - t0);
	return 0;
}
