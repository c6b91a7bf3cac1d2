/**
 * The io_uring ABI, written once: the counterpart of the kernel's {@code <linux/io_uring.h>} (and of
 * tokio-io-uring's {@code sys}), used by the ring core and by the portable engine alike.
 *
 * <p>Numbers: {@link io.uring4j.ring.abi.Opcode} (where an opcode is defined), {@link io.uring4j.ring.abi.OpFlags}
 * (per-opcode flags), {@link io.uring4j.ring.abi.SqeFlags}, {@link io.uring4j.ring.abi.CqeFlags},
 * {@link io.uring4j.ring.abi.SetupFlags}, {@link io.uring4j.ring.abi.Features},
 * {@link io.uring4j.ring.abi.EnterFlags}, {@link io.uring4j.ring.abi.RegisterOpcode}, and the flag words of the
 * rings, {@link io.uring4j.ring.abi.SqRingFlags} and {@link io.uring4j.ring.abi.CqRingFlags}.
 *
 * <p>Struct layouts, as byte offsets in descriptor classes: {@link io.uring4j.ring.abi.SqeLayout},
 * {@link io.uring4j.ring.abi.CqeLayout}, {@link io.uring4j.ring.abi.ParamsLayout} (io_uring_params, the SQ and CQ
 * offset tables, the mmap offsets), {@link io.uring4j.ring.abi.GeteventsArgLayout},
 * {@link io.uring4j.ring.abi.BufRingLayout} and {@link io.uring4j.ring.abi.RegisterArgLayout} (the other register
 * arguments: iovec, rsrc register/update, file index range, sync cancel, probe, restriction). Nothing here allocates or calls the kernel.
 */
package io.uring4j.ring.abi;
