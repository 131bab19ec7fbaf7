package dev.weir.nexmark.model;

import java.io.Serializable;

/** A new user and the reserve of an auction they opened in the same window: query 8's output. */
public record IdNameReserve(long id, String name, long reserve) implements Serializable {}
