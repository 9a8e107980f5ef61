-- The live intents of a chain that hold a transaction, which the detectors read every poll
-- (src/store/detection.ts unfinalizedMatches): through intents_live, that read visited every live
-- intent's row (~10 ms per poll at 100k live intents). A new intent has no transaction: no entry.
CREATE INDEX "intents_live_tx" ON "intents" USING btree ("chain","tx_signature","state") WHERE tx_signature IS NOT NULL AND state IN ('created','pending','confirmed','dropped');
