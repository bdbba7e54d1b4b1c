/**
 * Plan activation: a process serves only once its plan neighbours and its leader run the same plan.
 */
package io.mmx.membership.plan;
