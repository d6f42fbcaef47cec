-- Outbound webhooks (docs/webhooks.md): a cursor per webhook into the history, and one delivery row per
-- (webhook, event), unique, so a restart resumes where it stopped and nothing is sent for an event twice.

-- CreateTable
CREATE TABLE "WebhookCursor" (
    "webhook" TEXT NOT NULL PRIMARY KEY,
    "lastEventId" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "webhook" TEXT NOT NULL,
    "eventId" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "claimedUntil" DATETIME,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "deliveredAt" DATETIME,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "WebhookDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT
);

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_webhook_id_idx" ON "WebhookDelivery"("webhook", "id");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_id_idx" ON "WebhookDelivery"("status", "id");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_webhook_eventId_key" ON "WebhookDelivery"("webhook", "eventId");
