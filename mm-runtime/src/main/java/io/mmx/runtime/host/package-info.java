/**
 * The process host: one per JVM, without I/O. {@link io.mmx.runtime.host.ProcessHost} runs every
 * process the JVM hosts (their membership, their protocol cores and replicas, the routing of
 * commands to the leader) from {@code doWork(nowNs)} over injected ports: a
 * {@link io.mmx.runtime.host.HostTransport} for frames, each process's memory fabric, and
 * {@link io.mmx.runtime.host.HostClients} for outside clients. It starts no thread, reads no clock,
 * and opens no file or socket: the node wraps it in an Agrona agent over Aeron and the fabric, and a
 * test drives several hosts in one thread over in-memory ports and a virtual clock.
 */
package io.mmx.runtime.host;
