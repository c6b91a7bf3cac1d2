package io.uring4j.net;

import io.uring4j.sys.Logs;

import java.nio.channels.CompletionHandler;
import java.nio.channels.ShutdownChannelGroupException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Where an asynchronous channel's completion handler runs: the JDK's {@code sun.nio.ch.Invoker} rules, for one
 * group. A completion reaped by the group's poller runs there ({@link #runHere}); one reaped by an event loop (an
 * accept, a connect) goes to the group's executor — user code never runs on a loop, where a handler that blocks
 * would stall every request of that loop. An outcome known when the operation is started (a
 * closed channel, nothing to read, a read or write done in place) runs the handler on the initiating thread if that
 * is one of the group's and has not run {@link #MAX_DIRECT} handlers so since its last handler task began — the
 * JDK's bound on stack depth for handlers that start the next operation — and goes to the executor otherwise.
 *
 * <p>A thread is one of the group's once it has run one of the group's handler tasks, and stays so (until it runs
 * another group's), as the JDK binds an executor's threads: an application's own tasks on the executor — Tomcat
 * processes a connection so — then run the handlers of operations done in place directly, as with the JDK.
 */
final class AsyncHandlers {
    /** The JDK's bound, under the JDK's property name. */
    static final int MAX_DIRECT = Integer.getInteger("sun.nio.ch.maxCompletionHandlersOnStack", 16);

    /** The group this thread last ran a handler task of, and how many handlers it ran since that task began. */
    private static final ThreadLocal<Task> CURRENT = new ThreadLocal<>();

    private static final class Task {
        AsyncHandlers group;
        int handlers;
        /** Whether a handler task is running on this thread now (a task run inside it restores its state). */
        boolean nested;
    }

    private final Executor executor;

    AsyncHandlers(Executor executor) {
        this.executor = executor;
    }

    /**
     * From a loop (or any thread that must not run user code): hands the outcome to the executor. One the executor
     * refuses (it was shut down under the group) is dropped, as the JDK's group drops it, and said so; false then.
     */
    <V, A> boolean dispatch(CompletionHandler<V, ? super A> handler, A attachment, V value, Throwable failure) {
        try {
            executor.execute(() -> runAsTask(handler, attachment, value, failure));
            return true;
        } catch (RejectedExecutionException e) {
            Logs.net().log(System.Logger.Level.WARNING, "uring4j: the channel group's executor refused a completion "
                    + "handler (shut down outside the group?); it is not run: " + handler, e);
            return false;
        }
    }

    /**
     * From the initiating thread: runs the handler now if this thread is one of the group's under the bound,
     * otherwise on the executor; a refusing executor gives {@link ShutdownChannelGroupException}, as the JDK's.
     */
    <V, A> void invoke(CompletionHandler<V, ? super A> handler, A attachment, V value, Throwable failure) {
        Task task = CURRENT.get();
        boolean ours = task != null && task.group == this;
        if (ours && task.handlers < MAX_DIRECT) {
            task.handlers++;
            run(handler, attachment, value, failure);
            return;
        }
        try {
            executor.execute(() -> runAsTask(handler, attachment, value, failure));
        } catch (RejectedExecutionException e) {
            if (!ours) {
                throw new ShutdownChannelGroupException();
            }
            run(handler, attachment, value, failure);
        }
    }

    /** From one of the group's pollers: runs the handler here, as a handler task of the group's. */
    <V, A> void runHere(CompletionHandler<V, ? super A> handler, A attachment, V value, Throwable failure) {
        runAsTask(handler, attachment, value, failure);
    }

    private <V, A> void runAsTask(CompletionHandler<V, ? super A> handler, A attachment, V value, Throwable failure) {
        Task task = CURRENT.get();
        if (task == null) {
            task = new Task();
            CURRENT.set(task);
        }
        AsyncHandlers outer = task.group;
        int outerHandlers = task.handlers;
        boolean nested = task.nested;
        task.group = this;
        task.handlers = 1;
        task.nested = true;
        try {
            run(handler, attachment, value, failure);
        } finally {
            if (nested) {               // an executor that runs tasks on the caller: the outer task resumes
                task.group = outer;
                task.handlers = outerHandlers;
            }
            task.nested = nested;
        }
    }

    /** As the JDK's: the handler, then the interrupt status cleared, so that it does not leak into the next task. */
    private static <V, A> void run(CompletionHandler<V, ? super A> handler, A attachment, V value, Throwable failure) {
        try {
            if (failure == null) {
                handler.completed(value, attachment);
            } else {
                handler.failed(failure, attachment);
            }
        } finally {
            Thread.interrupted();
        }
    }
}
