package dev.weir.nexmark.model;

import java.io.Serializable;

/** A bidder and how many bids they made in one session: query 11's output. */
public record BidsPerSession(long personId, long bidsPerSession) implements Serializable {}
