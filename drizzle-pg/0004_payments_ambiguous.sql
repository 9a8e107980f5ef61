-- The ambiguous payments of a chain, which the detectors read every poll (src/store/detection.ts
-- unfinalizedMatches): before it, that read went through every payment of the chain.
CREATE INDEX "payments_ambiguous" ON "payments" USING btree ("chain") WHERE reason = 'ambiguous';