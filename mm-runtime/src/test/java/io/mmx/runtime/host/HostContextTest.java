package io.mmx.runtime.host;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostContextTest
{
    @Test
    void concludeNamesEveryProblemAtOnce()
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class,
            () -> new HostContext().tickNs(10).maxPending(0).conclude());
        final String message = ex.getMessage();
        for (final String named : new String[]{"transport is not set", "core is not set", "membership is not set",
            "planDigest is not set", "no processes", "hostOf", "tickNs must be at least 100000, got 10",
            "submitTimeoutNs must be positive", "maxPending must be positive, got 0"})
        {
            assertTrue(message.contains(named), "names '" + named + "': " + message);
        }
    }
}
