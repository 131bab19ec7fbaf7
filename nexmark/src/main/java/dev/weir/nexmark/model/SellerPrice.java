package dev.weir.nexmark.model;

import java.io.Serializable;

/** A seller and the average of their last winning prices: query 6's output. */
public record SellerPrice(long seller, long price) implements Serializable {}
