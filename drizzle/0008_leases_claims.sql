CREATE TABLE `claims` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`owner` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`epoch` integer NOT NULL,
	`expires_at` integer NOT NULL
);
