/** What an idle cluster of real processes costs in CPU and memory, against idle JVMs. */
package io.mmx.perf.idle;
