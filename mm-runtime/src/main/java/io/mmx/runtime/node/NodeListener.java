package io.mmx.runtime.node;

/**
 * Role and status changes of hosted processes, called on the node's agent thread; must not block.
 */
public interface NodeListener
{
    /** Ignores everything. */
    NodeListener NO_OP = new NodeListener()
    {
    };

    /**
     * The role of hosted process {@code process} changed.
     *
     * @param status its status now; {@link ProcessStatus#shownRole()} is the new role.
     */
    default void onRoleChange(final ProcessStatus status)
    {
    }
}
