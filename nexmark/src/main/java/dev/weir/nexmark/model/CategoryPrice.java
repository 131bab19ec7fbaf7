package dev.weir.nexmark.model;

import java.io.Serializable;

/** A category and the average winning price in it over a window: query 4's output. */
public record CategoryPrice(long category, long price, boolean isLast) implements Serializable {}
