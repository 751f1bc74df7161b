module example.com/testfail

go 1.26
