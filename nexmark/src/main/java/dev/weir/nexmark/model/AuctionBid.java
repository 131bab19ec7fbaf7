package dev.weir.nexmark.model;

import java.io.Serializable;

/** An auction and its winning bid: query 9's output. */
public record AuctionBid(Auction auction, Bid bid) implements Serializable {}
