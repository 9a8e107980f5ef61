ALTER TABLE `intents` ADD `refunds` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Intents refunded before this column existed had one refund: the one refundedBy names.
UPDATE `intents` SET `refunds` = json_array(`refunded_by`) WHERE `refunded_by` IS NOT NULL;
