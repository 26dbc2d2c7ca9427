// The reactions the full picker offers, by group, each with the name it is announced and found
// by. A curated set (the common ones of each group), not the whole Unicode list: a reaction
// picker is for reacting, and the bundle stays small.
export interface EmojiGroup {
  name: string;
  emojis: readonly (readonly [emoji: string, name: string])[];
}

export const emojiGroups: readonly EmojiGroup[] = [
  {
    name: "Smileys",
    emojis: [
      ["😀", "grinning face"], ["😃", "smiling face with big eyes"], ["😄", "smiling face with smiling eyes"], ["😁", "beaming face"],
      ["😆", "grinning squinting face"], ["😅", "grinning face with sweat"], ["🤣", "rolling on the floor laughing"], ["😂", "face with tears of joy"],
      ["🙂", "slightly smiling face"], ["🙃", "upside-down face"], ["😉", "winking face"], ["😊", "smiling face"],
      ["😇", "smiling face with halo"], ["🥰", "smiling face with hearts"], ["😍", "heart eyes"], ["🤩", "star-struck"],
      ["😘", "face blowing a kiss"], ["😋", "face savoring food"], ["😛", "face with tongue"], ["🤪", "zany face"],
      ["🤔", "thinking face"], ["🤨", "face with raised eyebrow"], ["😐", "neutral face"], ["😑", "expressionless face"],
      ["😶", "face without mouth"], ["🙄", "face with rolling eyes"], ["😏", "smirking face"], ["😬", "grimacing face"],
      ["😌", "relieved face"], ["😴", "sleeping face"], ["😷", "face with medical mask"], ["🤯", "exploding head"],
      ["🥳", "partying face"], ["😎", "smiling face with sunglasses"], ["🤓", "nerd face"], ["😕", "confused face"],
      ["😟", "worried face"], ["😮", "face with open mouth"], ["😲", "astonished face"], ["😳", "flushed face"],
      ["🥺", "pleading face"], ["😢", "crying face"], ["😭", "loudly crying face"], ["😱", "face screaming in fear"],
      ["😤", "face with steam from nose"], ["😡", "pouting face"], ["🤬", "face with symbols on mouth"], ["🤗", "hugging face"],
    ],
  },
  {
    name: "Gestures",
    emojis: [
      ["👍", "thumbs up"], ["👎", "thumbs down"], ["👏", "clapping hands"], ["🙌", "raising hands"],
      ["🙏", "folded hands"], ["🤝", "handshake"], ["👋", "waving hand"], ["✌️", "victory hand"],
      ["🤞", "crossed fingers"], ["👌", "OK hand"], ["🤙", "call me hand"], ["💪", "flexed biceps"],
      ["👀", "eyes"], ["🫡", "saluting face"], ["🤷", "person shrugging"], ["🙋", "person raising hand"],
    ],
  },
  {
    name: "Hearts",
    emojis: [
      ["❤️", "red heart"], ["🧡", "orange heart"], ["💛", "yellow heart"], ["💚", "green heart"],
      ["💙", "blue heart"], ["💜", "purple heart"], ["🖤", "black heart"], ["🤍", "white heart"],
      ["💔", "broken heart"], ["💯", "hundred points"], ["💥", "collision"], ["✨", "sparkles"],
    ],
  },
  {
    name: "Objects",
    emojis: [
      ["🎉", "party popper"], ["🎊", "confetti ball"], ["🎁", "wrapped gift"], ["🏆", "trophy"],
      ["🔥", "fire"], ["⭐", "star"], ["🌟", "glowing star"], ["⚡", "high voltage"],
      ["☕", "hot beverage"], ["🍕", "pizza"], ["🍰", "shortcake"], ["🍻", "clinking beer mugs"],
      ["🚀", "rocket"], ["💡", "light bulb"], ["📌", "pushpin"], ["📎", "paperclip"],
      ["✅", "check mark button"], ["❌", "cross mark"], ["⚠️", "warning"], ["❓", "question mark"],
      ["👉", "backhand index pointing right"], ["⏰", "alarm clock"], ["📅", "calendar"], ["🐛", "bug"],
    ],
  },
];
