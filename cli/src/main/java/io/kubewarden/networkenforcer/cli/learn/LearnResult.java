package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.ingest.file.CaptureSummary;
import java.util.SortedMap;

/** What learning a capture produced: the read's figures and the latest proposal per target key. */
record LearnResult(CaptureSummary capture, SortedMap<String, ProposalSnapshot> proposals) {}
