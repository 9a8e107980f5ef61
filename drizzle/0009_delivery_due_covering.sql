DROP INDEX `webhook_deliveries_due`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`,`url`,`lease_until`) WHERE status = 'pending';