package dev.weir.nexmark.model;

import java.io.Serializable;

/** An auction and how many bids it got in a window: query 5's output. */
public record AuctionCount(long auction, long count) implements Serializable {}
