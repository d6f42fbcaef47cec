-- Outbound webhooks (docs/webhooks.md): a cursor per webhook into the history, and one delivery row per
-- (webhook, event), unique, so a restart resumes where it stopped and nothing is sent for an event twice.

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('PENDING', 'DELIVERED', 'FAILED');

-- CreateTable
CREATE TABLE "WebhookCursor" (
    "webhook" TEXT COLLATE "C" NOT NULL,
    "lastEventId" INTEGER NOT NULL,

    CONSTRAINT "WebhookCursor_pkey" PRIMARY KEY ("webhook")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" SERIAL NOT NULL,
    "webhook" TEXT COLLATE "C" NOT NULL,
    "eventId" INTEGER NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "claimedUntil" TIMESTAMP(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT COLLATE "C",
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhook_id_idx" ON "WebhookDelivery"("webhook", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_id_idx" ON "WebhookDelivery"("status", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhook_eventId_key" ON "WebhookDelivery"("webhook", "eventId");

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
