-- The live intents of a receiver by amount, for the matcher (src/store: IntentRepo.listByReceiver):
-- when a busy receiver's page of newest candidates is full, the live ones a transfer of that amount
-- can pay are read here. Through intents_live that read visited every live row of the receiver
-- (~21 ms per found transfer at 100k live intents on one address, inside the write transaction).
CREATE INDEX "intents_live_exact" ON "intents" USING btree ("chain","requestor","token_address","amount_base_units") WHERE state IN ('created','pending','confirmed','dropped');
