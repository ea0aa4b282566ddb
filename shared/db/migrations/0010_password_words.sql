CREATE TABLE "platform"."password_word_lists" (
	"name" varchar(64) PRIMARY KEY NOT NULL,
	"position" integer NOT NULL,
	"max_word_size" integer NOT NULL,
	"words" integer NOT NULL,
	"version" varchar(64) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."password_words" (
	"word" text NOT NULL,
	"list" varchar(64) NOT NULL,
	"rank" integer NOT NULL,
	CONSTRAINT "password_words_word_list_pk" PRIMARY KEY("word","list")
);
