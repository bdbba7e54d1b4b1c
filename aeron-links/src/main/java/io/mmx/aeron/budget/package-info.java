/**
 * Aeron memory budget: what the log buffers of one endpoint cost at a given cluster size and layout.
 */
package io.mmx.aeron.budget;
