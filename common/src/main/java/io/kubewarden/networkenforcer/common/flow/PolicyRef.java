package io.kubewarden.networkenforcer.common.flow;

/** A policy the data plane named as the one that decided a flow (kind may be null). */
public record PolicyRef(String kind, String namespace, String name) {}
