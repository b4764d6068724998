package io.kubewarden.networkenforcer.common.flow;

/** A named container port of a pod, for resolving named ports in NetworkPolicy rules. */
public record NamedPort(String name, int port, Protocol protocol) {}
