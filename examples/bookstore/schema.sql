-- The Bookstore workload's database (PostgreSQL): 8 categories, 25 authors, 75 books (65 published, 10 featured,
-- 5 mentioning "python"), 205 reviews, seeded deterministically so every app and every run sees the same rows.
DROP TABLE IF EXISTS reviews, books, authors, categories;

CREATE TABLE categories (
    id   int PRIMARY KEY,
    name text NOT NULL,
    slug text NOT NULL UNIQUE
);

CREATE TABLE authors (
    id      int PRIMARY KEY,
    name    text NOT NULL,
    country text NOT NULL
);

CREATE TABLE books (
    id           int PRIMARY KEY,
    title        text NOT NULL,
    isbn         text NOT NULL UNIQUE,
    author_id    int NOT NULL REFERENCES authors,
    category_id  int NOT NULL REFERENCES categories,
    price        numeric(8, 2) NOT NULL,
    published    boolean NOT NULL,
    featured     boolean NOT NULL,
    published_on date NOT NULL,
    summary      text NOT NULL,
    search       tsvector GENERATED ALWAYS AS (to_tsvector('english', title || ' ' || summary)) STORED
);
CREATE INDEX books_search ON books USING gin (search);
CREATE INDEX books_published ON books (published, id);

CREATE TABLE reviews (
    id         int PRIMARY KEY,
    book_id    int NOT NULL REFERENCES books,
    rating     int NOT NULL CHECK (rating BETWEEN 1 AND 5),
    reviewer   text NOT NULL,
    body       text NOT NULL,
    created_on date NOT NULL
);
CREATE INDEX reviews_book ON reviews (book_id);

INSERT INTO categories
SELECT i, name, lower(name)
FROM unnest(ARRAY['Fiction', 'Science', 'History', 'Programming', 'Art', 'Travel', 'Cooking', 'Philosophy'])
     WITH ORDINALITY AS c(name, i);

INSERT INTO authors
SELECT i, 'Author ' || i, (ARRAY['NO', 'FR', 'JP', 'BR', 'KE'])[1 + i % 5]
FROM generate_series(1, 25) AS i;

INSERT INTO books (id, title, isbn, author_id, category_id, price, published, featured, published_on, summary)
SELECT i,
       CASE WHEN i IN (3, 17, 31, 45, 59) THEN 'Python in Practice, part ' || i ELSE 'Collected Works ' || i END,
       '978-0-' || lpad(i::text, 6, '0'),
       1 + (i * 7) % 25,
       1 + i % 8,
       (500 + (i * 3137) % 4500) / 100.0,
       i <= 65,
       i % 7 = 0,
       date '2020-01-01' + i * 11,
       'Volume ' || i || ' of the collection, on ' ||
           (ARRAY['rivers', 'numbers', 'cities', 'machines', 'colours', 'roads', 'kitchens', 'questions'])[1 + i % 8]
FROM generate_series(1, 75) AS i;

INSERT INTO reviews (id, book_id, rating, reviewer, body, created_on)
SELECT row_number() OVER (ORDER BY b.id, n),
       b.id,
       1 + (b.id * 7 + n * 3) % 5,
       'reader' || (1 + (b.id + n) % 40),
       'Review ' || n || ' of book ' || b.id,
       date '2024-01-01' + (b.id * 13 + n * 5) % 365
FROM books AS b,
     LATERAL generate_series(1, CASE WHEN b.published THEN 1 + (b.id * 3) % 5 ELSE 1 END) AS n;

ANALYZE;
