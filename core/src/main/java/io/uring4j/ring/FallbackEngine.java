package io.uring4j.ring;

/**
 * An engine that serves rings in user space where the kernel refuses io_uring: what {@link Engine#portable()}
 * returns and {@link Engine#auto()} falls back to. The ring core finds it through {@link java.util.ServiceLoader}
 * ({@link Provider}) rather than importing it, so that this package does not depend on the one that implements
 * it ({@code io.uring4j.portable}).
 */
public interface FallbackEngine extends Engine {
    /** Whether this engine implements {@code opcode} (what its probe reports). */
    boolean supports(int opcode);

    /** Whether {@code ringFd} is one of this engine's rings: its ring fds never collide with the kernel's fds. */
    boolean owns(int ringFd);

    /** The service: named by {@code provides} in module-info and by META-INF/services on the class path. */
    interface Provider {
        FallbackEngine engine();
    }
}
