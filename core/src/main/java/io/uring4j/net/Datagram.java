package io.uring4j.net;

import java.net.InetSocketAddress;

/**
 * A received datagram: {@code length} bytes at the start of the caller's buffer, from {@code sender}.
 * {@code truncated} means the datagram was longer than the buffer and the kernel dropped its tail (MSG_TRUNC).
 * On an AF_INET6 socket an IPv4 sender is an {@link java.net.Inet4Address}, as the JDK reports it (not IPv4-mapped).
 */
public record Datagram(int length, InetSocketAddress sender, boolean truncated) {
}
