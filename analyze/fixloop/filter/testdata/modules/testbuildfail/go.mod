module example.com/testbuildfail

go 1.26
