package dev.weir.nexmark.model;

import java.io.Serializable;

/** That the log of a window was written: query 10's output. */
public record Done(String message) implements Serializable {}
