"""Schema.org's Action types (https://schema.org/Action and its "More specific Types", all
levels), by base name: ``Buy`` for BuyAction. What GET /find's ``type`` filter takes: another
value names no type any action can have, and is refused with this list."""

from __future__ import annotations

SCHEMA_ACTIONS = frozenset(
    {
        # the root and its direct subtypes
        *("Achieve", "Assess", "Consume", "Control", "Create", "Find", "Interact", "Move"),
        *("Organize", "Play", "Search", "SeekTo", "SolveMath", "Trade", "Transfer", "Update"),
        *("Lose", "Tie", "Win"),  # Achieve
        *("Choose", "Vote", "Ignore", "React", "Agree", "Disagree", "Dislike", "Endorse"),
        *("Like", "Want", "Review"),  # Assess
        *("Drink", "Eat", "Install", "Listen", "PlayGame", "Read", "Use", "Wear", "View"),
        "Watch",  # Consume
        *("Activate", "Authorize", "Deactivate", "Resume", "Suspend"),  # Control
        *("Cook", "Draw", "Film", "Paint", "Photograph", "Write"),  # Create
        *("Check", "Discover", "Track"),  # Find
        *("Befriend", "Communicate", "Ask", "CheckIn", "CheckOut", "Comment", "Inform"),
        *("Confirm", "Rsvp", "Invite", "Reply", "Share", "Follow", "Join", "Leave", "Marry"),
        *("Register", "Subscribe", "UnRegister"),  # Interact
        *("Arrive", "Depart", "Travel"),  # Move
        *("Allocate", "Accept", "Assign", "Reject", "Apply", "Bookmark", "Plan", "Cancel"),
        *("Reserve", "Schedule"),  # Organize
        *("Exercise", "Perform"),  # Play
        *("Buy", "Donate", "Order", "Pay", "PreOrder", "Quote", "Rent", "Sell", "Tip"),
        *("Borrow", "Download", "Give", "Lend", "MoneyTransfer", "Receive", "Return"),
        *("Send", "Take"),  # Transfer
        *("Add", "Insert", "Append", "Prepend", "Delete", "Replace"),  # Update
        *("Login", "Authenticate"),  # not Schema.org's, but written by sites and typed here
    }
)
